import { type Kysely, sql } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";
import type { StoredEvent } from "../vulnerabilities/import/advisory-row.ts";
import {
  advisoryUsableBy,
  type CandidateAdvisory,
  candidateColumns,
  findVulnerabilities,
  type InstalledPackage,
  namespaceMatches,
  packageTarget,
} from "../vulnreports/matching/index.ts";
import { type Ecosystem, ecosystemSchemes, normalizePythonName, purlTypes } from "./ecosystems.ts";

/** How one advisory concerns one version. */
export interface VersionAdvisoryEntry {
  advisoryId: string;
  aliases: string[];
  /** affected: the version is vulnerable; fixed: it is the version that fixes it. */
  status: "affected" | "fixed";
  /** The version with the fix; "" when none is known. */
  fixedVersion: string;
}

/** The artifact whose versions are asked about. */
export interface AdvisoryArtifact {
  ecosystem: Ecosystem;
  /** Canonical name (LibraryArtifactsTable.name). */
  name: string;
  /** The organisation: its own advisories apply besides the public ones. */
  orgUid: string;
}

/**
 * The package URL of one version (purl-spec): `pkg:pypi/<name>@<v>`, `pkg:npm/%40scope/name@<v>`,
 * `pkg:maven/<group>/<artifact>@<v>`.
 */
export function packageUrl(ecosystem: Ecosystem, name: string, version: string): string {
  const path =
    ecosystem === "java"
      ? name.split(":").map(encodeURIComponent).join("/")
      : name.split("/").map(encodeURIComponent).join("/");
  return `pkg:${purlTypes[ecosystem]}/${path}@${encodeURIComponent(version)}`;
}

/**
 * The lower-cased names an advisory about the artifact may carry. PEP 503 folds case and runs
 * of `-`, `_` and `.`; advisories keep the project's own spelling, which almost always uses
 * one kind of separator.
 */
function lowerNames(artifact: AdvisoryArtifact): string[] {
  const name = artifact.name.toLowerCase();
  if (artifact.ecosystem !== "python") return [name];
  return [...new Set([name, name.replaceAll("-", "_"), name.replaceAll("-", ".")])];
}

function sameName(artifact: AdvisoryArtifact, advisoryName: string): boolean {
  return artifact.ecosystem === "python"
    ? normalizePythonName(advisoryName) === artifact.name
    : advisoryName === artifact.name;
}

/**
 * The advisories of each of `versions` of an artifact, by version: the live public advisories
 * and the organisation's own about the package, evaluated as the vulnerability-report matcher
 * evaluates an installed package (its namespaces, OSV ranges and latest event). A version the
 * matcher finds vulnerable is `affected`; the advisory's fixed version itself is `fixed` (so a
 * page says where each fix landed, and a package with a long history does not repeat every old
 * fix on every later version); other versions are left out.
 */
export async function versionAdvisories(
  db: Kysely<MetadataSchema>,
  artifact: AdvisoryArtifact,
  versions: readonly string[],
): Promise<Map<string, VersionAdvisoryEntry[]>> {
  const byVersion = new Map<string, Map<string, VersionAdvisoryEntry>>(
    versions.map((v) => [v, new Map()]),
  );
  const result = () =>
    new Map(
      [...byVersion].map(([v, entries]) => [
        v,
        [...entries.values()].sort((a, b) => (a.advisoryId < b.advisoryId ? -1 : 1)),
      ]),
    );
  if (versions.length === 0) return result();
  const rows = await db
    .selectFrom("advisories")
    .select(candidateColumns)
    .where(sql<string>`lower(artifact_name)`, "in", lowerNames(artifact))
    .where("withdrawn_time", "is", null)
    .execute();
  // The matcher compares names exactly: give it the catalogue's spelling.
  const candidates: CandidateAdvisory[] = rows
    .filter(
      (r) => advisoryUsableBy(r.parent_uid, artifact.orgUid) && sameName(artifact, r.artifact_name),
    )
    .map((r) => ({ ...r, artifact_name: artifact.name }));
  if (candidates.length === 0) return result();
  const packages: InstalledPackage[] = versions.map((version) => ({
    name: artifact.name,
    version,
    purl: packageUrl(artifact.ecosystem, artifact.name, version),
    ecosystem: purlTypes[artifact.ecosystem],
    license: "",
    origin: "",
  }));
  for (const finding of findVulnerabilities(packages, candidates, {
    distro: "",
    architecture: "",
  })) {
    byVersion.get(finding.pkg.version)?.set(finding.advisory.advisory_id, {
      advisoryId: finding.advisory.advisory_id,
      aliases: JSON.parse(finding.advisory.aliases) as string[],
      status: "affected",
      fixedVersion: finding.versions[0] ?? "",
    });
  }
  const target = packageTarget(packages[0], "");
  const scheme = ecosystemSchemes[artifact.ecosystem];
  for (const advisory of candidates) {
    if (!namespaceMatches(target, advisory.package_namespace, advisory.artifact_type)) continue;
    const latest = (JSON.parse(advisory.events) as StoredEvent[]).at(-1);
    const fixed = latest?.type === "fixed" ? (latest.fixedVersion ?? "") : "";
    if (fixed === "") continue;
    for (const [version, entries] of byVersion) {
      if (entries.has(advisory.advisory_id)) continue;
      if (scheme.compareText(version, fixed).value !== 0) continue;
      entries.set(advisory.advisory_id, {
        advisoryId: advisory.advisory_id,
        aliases: JSON.parse(advisory.aliases) as string[],
        status: "fixed",
        fixedVersion: fixed,
      });
    }
  }
  return result();
}
