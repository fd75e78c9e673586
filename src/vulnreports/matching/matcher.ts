import { isAffected, type OsvAffected } from "../../versions/index.ts";
import type { ReferenceRecord, SeverityRecord } from "../../vulnerabilities/feeds/feed-records.ts";
import type { StoredEvent } from "../../vulnerabilities/import/advisory-row.ts";
import { advisoryVerdict, type FixState } from "./advisory-verdict.ts";
import {
  architectureMatches,
  type InstalledPackage,
  namespaceMatches,
  packageTarget,
} from "./package-target.ts";
import { mergeSameSoftware } from "./same-software.ts";
import { type CvssScore, cvssScores, type SeverityName, severityOf } from "./severity.ts";

/** The columns of an `advisories` row the matcher reads. */
export interface CandidateAdvisory {
  uid: string;
  advisory_id: string;
  artifact_name: string;
  artifact_type: string;
  artifact_architecture: string;
  package_namespace: string;
  /** JSON array of strings. */
  aliases: string;
  /** JSON array of StoredEvent, oldest first. */
  events: string;
  /** JSON array of OSV affected entries (ranges), or "" when the source had none. */
  affected?: string;
  latest_event_time: string;
  withdrawn_time: string | null;
}

/** What the metadata says about one vulnerability id. */
export interface VulnerabilityMetadata {
  id: string;
  summary: string;
  details: string;
  references: ReferenceRecord[];
  severities: SeverityRecord[];
  /** Other ids of the same vulnerability (vulnerability_aliases). */
  aliases: string[];
}

/** One package's advisory that counts, before the metadata is read. */
export interface Finding {
  pkg: InstalledPackage;
  advisory: CandidateAdvisory;
  events: StoredEvent[];
  /** The vulnerability id the match is reported under. */
  id: string;
  /** Every id the advisory gives: its aliases then its own id. */
  ids: string[];
  state: FixState;
  versions: string[];
  note: string;
  /**
   * The same vulnerability in the same software found again as a language package (the
   * dist-info of a Debian python3-* package): reported with this finding, not on its own.
   */
  sameAs?: Finding[];
}

/** Every vulnerability id a finding gives, those of the findings folded into it included. */
export function findingIds(finding: Finding): string[] {
  return [finding.id, ...finding.ids, ...(finding.sameAs ?? []).flatMap(findingIds)];
}

/** The v1 VulnerabilityMatch, in its JSON form (reference §3.9). */
export interface VulnerabilityMatch {
  vulnerability: {
    id: string;
    displayId: string;
    description: string;
    severity: SeverityName;
    source: string;
    cvss: CvssScore[];
    cpeUri: string[];
    relatedUrls: string[];
    advisories: Record<string, MatchAdvisory>;
    relatedVulnerabilities: { id: string; source: string }[];
  };
  pkg: {
    id: string;
    name: string;
    version: string;
    purl: string;
    license: string;
    description: string;
  };
  fix: { state: FixState; versions: string[] };
  note?: string;
}

/** The advisory behind a match and its latest event. */
export interface MatchAdvisory {
  id: string;
  latestEventType: string;
  latestEventTime: string;
  fixedVersion?: string;
  note?: string;
}

/** The image being matched. */
export interface ImageFacts {
  /** From os-release: `wolfi`, `alpine 3.20`, `debian 12`; "" when unknown. */
  distro: string;
  /** OCI architecture (amd64, arm64); "" when unknown. */
  architecture: string;
}

/** The id a vulnerability is reported under: its CVE when it has one. */
export function reportedId(advisoryId: string, aliases: readonly string[]): string {
  return aliases.find((a) => a.startsWith("CVE-")) ?? aliases[0] ?? advisoryId;
}

/**
 * The advisories that count for each package: those about its name, origin or purl name, in
 * a namespace and architecture that fit the image, not withdrawn, whose latest event leaves
 * the installed version affected. When several advisories give the same vulnerability for one
 * package, the one with the newest latest event decides, whatever it says. A language package
 * that is a distribution package found again reports with it (mergeSameSoftware).
 */
export function findVulnerabilities(
  packages: readonly InstalledPackage[],
  advisories: readonly CandidateAdvisory[],
  image: ImageFacts,
): Finding[] {
  const byName = new Map<string, CandidateAdvisory[]>();
  for (const advisory of advisories) {
    if (advisory.withdrawn_time !== null) continue;
    if (!architectureMatches(advisory.artifact_architecture, image.architecture)) continue;
    const list = byName.get(advisory.artifact_name);
    if (list) list.push(advisory);
    else byName.set(advisory.artifact_name, [advisory]);
  }
  const findings: Finding[] = [];
  for (const pkg of packages) {
    const target = packageTarget(pkg, image.distro);
    const chosen = new Map<string, { advisory: CandidateAdvisory; aliases: string[] }>();
    const seen = new Set<string>();
    for (const name of target.names) {
      for (const advisory of byName.get(name) ?? []) {
        if (seen.has(advisory.uid)) continue;
        seen.add(advisory.uid);
        if (!namespaceMatches(target, advisory.package_namespace, advisory.artifact_type)) continue;
        const aliases = JSON.parse(advisory.aliases) as string[];
        const id = reportedId(advisory.advisory_id, aliases);
        const other = chosen.get(id);
        if (other && other.advisory.latest_event_time >= advisory.latest_event_time) continue;
        chosen.set(id, { advisory, aliases });
      }
    }
    for (const [id, { advisory, aliases }] of chosen) {
      if (outsideRanges(advisory, pkg.version)) continue;
      const events = JSON.parse(advisory.events) as StoredEvent[];
      const verdict = advisoryVerdict(events, pkg.version, target.scheme);
      if (!verdict.matches) continue;
      findings.push({
        pkg,
        advisory,
        events,
        id,
        ids: [...aliases, advisory.advisory_id],
        state: verdict.state,
        versions: verdict.versions,
        note: verdict.note,
      });
    }
  }
  return mergeSameSoftware(findings);
}

/**
 * Whether the advisory's OSV ranges place `version` outside every affected range (an OSV
 * record affecting 2.0 to 2.5 says nothing about 1.9). Ranges that cannot be evaluated (GIT
 * only, versions the ecosystem's rules refuse) leave the decision to the events.
 */
function outsideRanges(advisory: CandidateAdvisory, version: string): boolean {
  if (!advisory.affected) return false;
  const entries = JSON.parse(advisory.affected) as OsvAffected[];
  let answered = false;
  for (const entry of entries) {
    const inside = isAffected(version, entry);
    if (inside.error !== undefined) continue;
    if (inside.value) return false;
    answered = true;
  }
  return answered;
}

/** Where an id comes from, by its prefix (CVE → nvd, GHSA → ghsa, GO → go, …). */
function idSource(id: string, fallback: string): string {
  if (id.startsWith("CVE-")) return "nvd";
  const dash = id.indexOf("-");
  return dash > 0 ? id.slice(0, dash).toLowerCase() : fallback;
}

/**
 * The v1 match of a finding, with the metadata of its ids (`metadata` by id; every id given
 * and each one's aliases are consulted, the reported id first).
 */
export function toMatch(
  finding: Finding,
  metadata: ReadonlyMap<string, VulnerabilityMetadata>,
): VulnerabilityMatch {
  const { pkg, advisory, events, id } = finding;
  const sameAs = finding.sameAs ?? [];
  // findingIds starts with the finding's own id, so it stays first.
  const ids = [...new Set(findingIds(finding))];
  for (const i of [...ids]) {
    for (const alias of metadata.get(i)?.aliases ?? []) if (!ids.includes(alias)) ids.push(alias);
  }
  const records = ids.flatMap((i) => metadata.get(i)?.severities ?? []);
  const cvss = cvssScores(records);
  const described = ids.map((i) => metadata.get(i)).find((m) => m && (m.summary || m.details));
  const own = metadata.get(id);
  const note = [finding.note, sameAsNote(sameAs)].filter(Boolean).join("; ");
  const cpes = new Set<string>();
  for (const e of events) if (e.detection?.cpeFound) cpes.add(e.detection.cpeFound);
  return {
    vulnerability: {
      id,
      displayId: id,
      description: described ? described.summary || described.details.slice(0, 1000) : "",
      severity: severityOf(cvss),
      source: advisory.package_namespace,
      cvss,
      cpeUri: [...cpes],
      relatedUrls: [...new Set((own?.references ?? []).map((r) => r.url))].slice(0, 20),
      advisories: Object.fromEntries([
        ...sameAs.map((f) => [f.advisory.advisory_id, advisoryOf(f)]),
        [advisory.advisory_id, advisoryOf(finding)],
      ]),
      relatedVulnerabilities: ids
        .filter((i) => i !== id && i !== advisory.advisory_id)
        .filter((i) => !sameAs.some((f) => f.advisory.advisory_id === i))
        .map((i) => ({ id: i, source: idSource(i, advisory.package_namespace) })),
    },
    pkg: {
      id: pkg.purl || `${pkg.name}@${pkg.version}`,
      name: pkg.name,
      version: pkg.version,
      purl: pkg.purl,
      license: pkg.license,
      description: "",
    },
    fix: { state: finding.state, versions: finding.versions },
    ...(note ? { note } : {}),
  };
}

/** The advisory entry of a finding, from its latest event. */
function advisoryOf(finding: Finding): MatchAdvisory {
  const latest = finding.events.at(-1);
  return {
    id: finding.advisory.advisory_id,
    latestEventType: latest?.type ?? "",
    latestEventTime: latest?.timestamp ?? "",
    ...(latest?.fixedVersion ? { fixedVersion: latest.fixedVersion } : {}),
    ...(latest?.note ? { note: latest.note } : {}),
  };
}

/** Names the packages a finding stands for besides its own, for the match's note. */
function sameAsNote(sameAs: readonly Finding[]): string {
  if (sameAs.length === 0) return "";
  const names = sameAs.map((f) => f.pkg.purl || `${f.pkg.name}@${f.pkg.version}`);
  return `the same software is also installed as ${names.join(", ")}, reported here once`;
}

const order: Record<SeverityName, number> = {
  CRITICAL: 0,
  HIGH: 1,
  MEDIUM: 2,
  LOW: 3,
  NEGLIGIBLE: 4,
  UNKNOWN: 5,
};

/** Sorts matches most severe first, then by vulnerability id and package. */
export function sortMatches(matches: VulnerabilityMatch[]): VulnerabilityMatch[] {
  const key = (m: VulnerabilityMatch) => `${m.vulnerability.id}\n${m.pkg.name}\n${m.pkg.version}`;
  return matches.sort(
    (a, b) =>
      order[a.vulnerability.severity] - order[b.vulnerability.severity] ||
      (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0),
  );
}

/** Matches packages against advisories and metadata in one call (tests, benchmarks). */
export function matchPackages(
  packages: readonly InstalledPackage[],
  advisories: readonly CandidateAdvisory[],
  metadata: ReadonlyMap<string, VulnerabilityMetadata>,
  image: ImageFacts,
): VulnerabilityMatch[] {
  return sortMatches(
    findVulnerabilities(packages, advisories, image).map((f) => toMatch(f, metadata)),
  );
}
