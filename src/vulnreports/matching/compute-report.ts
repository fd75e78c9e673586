import { readFileSync } from "node:fs";
import type { Kysely } from "kysely";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import type { ReferenceRecord, SeverityRecord } from "../../vulnerabilities/feeds/feed-records.ts";
import {
  type MetadataOwner,
  metadataOwnerOf,
  readAliasView,
  readMetadataView,
} from "../../vulnerabilities/metadata-view.ts";
import { publicAdvisoriesGroupUid } from "../../vulnerabilities/public-advisories.ts";
import {
  type CandidateAdvisory,
  findingIds,
  findVulnerabilities,
  sortMatches,
  toMatch,
  type VulnerabilityMetadata,
} from "./matcher.ts";
import { packageTarget } from "./package-target.ts";
import { reportCounts } from "./report-counts.ts";

/**
 * Names or ids per IN list: under SQLite's bound-parameter limit (32,766) and PostgreSQL's
 * (65,535), and few enough round trips that a 2,000-package image needs a handful.
 */
const batch = 5000;

/** "lading-<version>" from package.json, read once. */
export const scannerVersion = `lading-${
  (
    JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8")) as {
      version: string;
    }
  ).version
}`;

/** The advisories columns the matcher reads (CandidateAdvisory), with the owning group. */
export const candidateColumns = [
  "uid",
  "parent_uid",
  "advisory_id",
  "artifact_name",
  "artifact_type",
  "artifact_architecture",
  "package_namespace",
  "aliases",
  "events",
  "affected",
  "latest_event_time",
  "withdrawn_time",
] as const;

/**
 * True when an advisory of group `parentUid` applies to the packages of organisation
 * `orgUid`: the public advisories and the organisation's own. Another organisation's
 * advisories (its false positives, say) never do.
 */
export function advisoryUsableBy(parentUid: string, orgUid: string): boolean {
  return (
    parentUid === publicAdvisoriesGroupUid ||
    parentUid === orgUid ||
    parentUid.startsWith(`${orgUid}/`)
  );
}

/** The image a report is computed for. */
export interface ReportTarget {
  repoUid: string;
  /** An image manifest digest (never an index). */
  digest: string;
}

/**
 * Matches the stored packages of one image against the advisories its organisation may use
 * (the public advisories and its own), describes the matches from the organisation's view of
 * the metadata (its private copies over the public rows; never another organisation's), and
 * writes the next report generation. rematch is
 * cleared before the advisories are read, so an import that commits while this runs marks the
 * image again and nothing it changed is missed; it is set back if the report is not written.
 */
export async function computeReport(
  db: Kysely<MetadataSchema>,
  target: ReportTarget,
): Promise<{ generation: number }> {
  const { repoUid, digest } = target;
  const scan = await db
    .selectFrom("image_scans")
    .select(["distro", "architecture", "rematch"])
    .where("repo_uid", "=", repoUid)
    .where("digest", "=", digest)
    .executeTakeFirst();
  if (!scan) throw new Error(`image ${repoUid}@${digest} has no scan`);
  const repo = await db
    .selectFrom("repos")
    .select("root_uid")
    .where("uid", "=", repoUid)
    .executeTakeFirst();
  if (!repo) throw new Error(`repo ${repoUid} does not exist`);
  if (scan.rematch) await setRematch(db, target, 0);
  try {
    return await matchAndWrite(db, target, scan, repo.root_uid);
  } catch (error) {
    if (scan.rematch) await setRematch(db, target, 1).catch(() => undefined);
    throw error;
  }
}

async function matchAndWrite(
  db: Kysely<MetadataSchema>,
  { repoUid, digest }: ReportTarget,
  image: { distro: string; architecture: string },
  orgUid: string,
): Promise<{ generation: number }> {
  const packages = await db
    .selectFrom("image_packages")
    .select(["name", "version", "purl", "ecosystem", "license", "origin"])
    .where("repo_uid", "=", repoUid)
    .where("image_digest", "=", digest)
    .execute();
  const names = new Set<string>();
  for (const pkg of packages) for (const n of packageTarget(pkg, image.distro).names) names.add(n);
  const advisories: CandidateAdvisory[] = [];
  let dbTime = "";
  for (const part of chunks([...names])) {
    const rows = await db
      .selectFrom("advisories")
      .select([...candidateColumns, "update_time"])
      .where("artifact_name", "in", part)
      .execute();
    for (const row of rows) {
      if (!advisoryUsableBy(row.parent_uid, orgUid)) continue;
      advisories.push(row);
      if (row.update_time > dbTime) dbTime = row.update_time;
    }
  }
  const findings = findVulnerabilities(packages, advisories, image);
  const metadata = await readMetadata(
    db,
    [...new Set(findings.flatMap(findingIds))],
    metadataOwnerOf(orgUid),
  );
  for (const m of metadata.values()) if (m.updateTime > dbTime) dbTime = m.updateTime;
  const matches = sortMatches(findings.map((f) => toMatch(f, metadata)));
  const counts = reportCounts(matches);
  const time = new Date().toISOString();
  return db.transaction().execute(async (trx) => {
    // The row lock taken here orders concurrent computations of one image.
    const bumped = await trx
      .updateTable("image_scans")
      .set((eb) => ({ generation: eb("generation", "+", 1), update_time: time }))
      .where("repo_uid", "=", repoUid)
      .where("digest", "=", digest)
      .returning("generation")
      .executeTakeFirstOrThrow();
    const generation = Number(bumped.generation);
    await trx
      .insertInto("vuln_reports")
      .values({
        repo_uid: repoUid,
        digest,
        generation,
        matches: JSON.stringify(matches),
        counts: JSON.stringify(counts),
        scanner_version: scannerVersion,
        db_time: dbTime,
        create_time: time,
      })
      .execute();
    return { generation };
  });
}

async function setRematch(
  db: Kysely<MetadataSchema>,
  { repoUid, digest }: ReportTarget,
  rematch: number,
): Promise<void> {
  await db
    .updateTable("image_scans")
    .set({ rematch })
    .where("repo_uid", "=", repoUid)
    .where("digest", "=", digest)
    .execute();
}

/**
 * The metadata of `ids` and of their aliases in `owner`'s view, by id. Two rounds: the
 * aliases first, then every row at once.
 */
async function readMetadata(
  db: Kysely<MetadataSchema>,
  ids: string[],
  owner: MetadataOwner,
): Promise<Map<string, VulnerabilityMetadata & { updateTime: string }>> {
  const aliases = await readAliasView(db, ids, owner);
  const all = new Set([...ids, ...[...aliases.values()].flat()]);
  const rows = await readMetadataView(db, [...all], owner);
  const out = new Map<string, VulnerabilityMetadata & { updateTime: string }>();
  for (const row of rows.values()) {
    out.set(row.id, {
      id: row.id,
      summary: row.summary,
      details: row.details,
      references: JSON.parse(row.references) as ReferenceRecord[],
      severities: JSON.parse(row.severities) as SeverityRecord[],
      aliases: aliases.get(row.id) ?? [],
      updateTime: row.update_time,
    });
  }
  // An id with aliases but no row of its own still leads to them.
  for (const [id, list] of aliases) {
    if (!out.has(id)) {
      out.set(id, {
        id,
        summary: "",
        details: "",
        references: [],
        severities: [],
        aliases: list,
        updateTime: "",
      });
    }
  }
  return out;
}

function chunks<T>(items: readonly T[]): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += batch) out.push(items.slice(i, i + batch));
  return out;
}
