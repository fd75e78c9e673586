import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import type { MetadataSchema } from "../../src/store/metadata/index.ts";
import { countAdvisoryChange } from "../../src/vulnerabilities/advisory-changes.ts";
import type { AdvisoryEventRecord } from "../../src/vulnerabilities/index.ts";

/** A package row of a scanned image; ecosystem defaults to the purl type. */
export interface TestPackage {
  name: string;
  version: string;
  purl?: string;
  origin?: string;
}

/** A match in the v1 VulnerabilityMatch shape (reference §3.9). */
export function match(
  id: string,
  severity: string,
  pkg: TestPackage,
  fix: { state: string; versions: string[] } = { state: "NOT_FIXED", versions: [] },
): Record<string, unknown> {
  return {
    vulnerability: { id, severity, advisories: {}, relatedVulnerabilities: [] },
    pkg: { name: pkg.name, version: pkg.version, purl: pkg.purl ?? "" },
    fix,
  };
}

/** An apk package with its Wolfi purl. */
export function apk(name: string, version: string, origin = ""): TestPackage {
  return { name, version, purl: `pkg:apk/wolfi/${name}@${version}?arch=x86_64`, origin };
}

const time = "2026-01-01T00:00:00.000Z";

/**
 * Records the scan of image manifest `digest` as the scanner would: its image_scans row, and
 * for a finished scan its packages and report generation `generation`.
 */
export async function recordScan(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  digest: string,
  scan: {
    state: "pending" | "scanning" | "done" | "failed";
    reason?: string;
    packages?: TestPackage[];
    matches?: Record<string, unknown>[];
    generation?: number;
    reportTime?: string;
  },
): Promise<void> {
  const generation = scan.state === "done" ? (scan.generation ?? 1) : 0;
  await db
    .insertInto("image_scans")
    .values({
      repo_uid: repoUid,
      digest,
      state: scan.state,
      reason: scan.reason ?? "",
      rematch: 0,
      attempts: 1,
      claim_time: null,
      sbom_digest: "",
      sbom_source: "generated",
      architecture: "",
      os: "linux",
      distro: "wolfi",
      size: 0,
      generation,
      create_time: time,
      update_time: time,
    })
    // A push through the registry queues the image first; what is recorded here replaces it.
    .onConflict((oc) =>
      oc.columns(["repo_uid", "digest"]).doUpdateSet((eb) => ({
        state: eb.ref("excluded.state"),
        reason: eb.ref("excluded.reason"),
        generation: eb.ref("excluded.generation"),
        distro: eb.ref("excluded.distro"),
        os: eb.ref("excluded.os"),
        attempts: eb.ref("excluded.attempts"),
      })),
    )
    .execute();
  if (scan.state !== "done") return;
  for (const p of scan.packages ?? []) {
    await db
      .insertInto("image_packages")
      .values({
        repo_uid: repoUid,
        image_digest: digest,
        sbom_digest: "",
        name: p.name,
        version: p.version,
        purl: p.purl ?? "",
        ecosystem: p.purl ? p.purl.slice(4, p.purl.indexOf("/")) : "",
        license: "",
        origin: p.origin ?? "",
      })
      .execute();
  }
  await db
    .insertInto("vuln_reports")
    .values({
      repo_uid: repoUid,
      digest,
      generation,
      matches: JSON.stringify(scan.matches ?? []),
      counts: "{}",
      scanner_version: "test",
      db_time: time,
      create_time: scan.reportTime ?? time,
    })
    .execute();
}

/** Stores an advisory about package `artifact` under group `parentUid`. */
export async function recordAdvisory(
  db: Kysely<MetadataSchema>,
  parentUid: string,
  advisory: { id: string; artifact: string; aliases: string[]; events: AdvisoryEventRecord[] },
): Promise<void> {
  const latest = advisory.events.at(-1);
  const hash = createHash("sha256").update(`${parentUid}${advisory.id}`).digest("hex");
  // As the advisory writer does: the change counter moves with the row (search index).
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto("advisories")
      .values({
        uid: `${parentUid}/${hash.slice(0, 16)}`,
        parent_uid: parentUid,
        advisory_id: advisory.id,
        artifact_name: advisory.artifact,
        affected: "",
        artifact_type: "apk",
        artifact_architecture: "",
        component_name: "",
        component_type: "",
        component_location: "",
        package_namespace: "wolfi",
        aliases: JSON.stringify(advisory.aliases),
        events: JSON.stringify(advisory.events.map((e, i) => ({ ...e, uid: String(i) }))),
        event_mask: 0,
        latest_event_type: latest?.type ?? "",
        latest_event_time: latest?.timestamp ?? "",
        search_text: advisory.artifact,
        author: "",
        source: "test",
        source_key: advisory.id,
        document: advisory.artifact,
        content_hash: hash,
        withdrawn_time: null,
        withdrawn_reason: "",
        create_time: time,
        update_time: time,
      })
      .execute();
    await countAdvisoryChange(trx);
  });
}
