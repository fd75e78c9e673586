import type { Kysely } from "kysely";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import type { SbomRecord, ScanOutcome } from "./scan-image.ts";
import type { ScanKey } from "./scan-results.ts";

/** Rows per INSERT: well under SQLite's and PostgreSQL's bound-parameter limits. */
const CHUNK = 500;

/** Records the SBOMs a scan read, replacing what an earlier scan recorded for each. */
export async function recordSboms(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  imageDigest: string,
  sboms: readonly SbomRecord[],
): Promise<void> {
  const time = new Date().toISOString();
  for (const s of sboms) {
    await db
      .insertInto("image_sboms")
      .values({
        repo_uid: repoUid,
        image_digest: imageDigest,
        sbom_digest: s.sbomDigest,
        source: s.source,
        format: s.format,
        state: s.state,
        reason: s.reason,
        package_count: s.packageCount,
        create_time: time,
      })
      .onConflict((oc) =>
        oc.columns(["repo_uid", "image_digest", "sbom_digest"]).doUpdateSet({
          format: s.format,
          state: s.state,
          reason: s.reason,
          package_count: s.packageCount,
        }),
      )
      .execute();
  }
}

/**
 * Writes a finished scan in one transaction: the image's row (only while this worker's claim
 * holds: a pushed SBOM resets the claim, and that scan's result is then discarded), its
 * packages in place of the previous ones, and its SBOMs. False when the claim was lost.
 */
export async function finishScan(
  db: Kysely<MetadataSchema>,
  key: ScanKey,
  outcome: Done,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    if (!(await markDone(trx, key, outcome))) return false;
    await deletePackages(trx, key);
    await insertPackages(trx, key, outcome, outcome.packages);
    await recordSboms(trx, key.repoUid, key.digest, outcome.sboms);
    return true;
  });
}

/**
 * Writes a finished scan of more packages than one transaction may write, in transactions of
 * `rows` packages, each taken only while the claim holds (its row lock orders it against a
 * requeue), with a pause between them in which other writers get the store. The image row
 * turns done last. A scan that loses its claim midway stops; the scan that took over deletes
 * what it wrote. Until then the image's package list is partial, as its state (scanning) says.
 */
export async function finishBigScan(
  db: Kysely<MetadataSchema>,
  key: ScanKey,
  outcome: Done,
  rows: number,
): Promise<boolean> {
  const { packages } = outcome;
  for (let i = -rows; i < packages.length; i += rows) {
    const held = await db.transaction().execute(async (trx) => {
      if (!(await claimHolds(trx, key))) return false;
      if (i < 0) await deletePackages(trx, key);
      else await insertPackages(trx, key, outcome, packages.slice(i, i + rows));
      return true;
    });
    if (!held) return false;
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
  return db.transaction().execute(async (trx) => {
    if (!(await markDone(trx, key, outcome))) return false;
    await recordSboms(trx, key.repoUid, key.digest, outcome.sboms);
    return true;
  });
}

/**
 * Other writers get their turn between slices: on SQLite a writer that found the lock taken
 * sleeps 1, 2, 5, 10, 15… ms between tries, and must find it free on one of them.
 */
const PAUSE_MS = 15;

type Done = Extract<ScanOutcome, { kind: "done" }>;

/** The image row turned done, while the claim holds; false when it no longer does. */
async function markDone(db: Kysely<MetadataSchema>, key: ScanKey, outcome: Done) {
  const updated = await db
    .updateTable("image_scans")
    .set({
      state: "done",
      reason: outcome.reason,
      rematch: 0,
      attempts: 0,
      claim_time: null,
      sbom_digest: outcome.sbomDigest,
      sbom_source: outcome.sbomSource,
      architecture: outcome.architecture,
      os: outcome.os,
      distro: outcome.distro,
      size: outcome.size,
      update_time: new Date().toISOString(),
    })
    .where("repo_uid", "=", key.repoUid)
    .where("digest", "=", key.digest)
    .where("state", "=", "scanning")
    .where("claim_time", "=", key.claim)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

/** Whether the claim still holds; the no-op update locks the row for the transaction. */
async function claimHolds(db: Kysely<MetadataSchema>, key: ScanKey) {
  const updated = await db
    .updateTable("image_scans")
    .set({ claim_time: key.claim })
    .where("repo_uid", "=", key.repoUid)
    .where("digest", "=", key.digest)
    .where("state", "=", "scanning")
    .where("claim_time", "=", key.claim)
    .executeTakeFirst();
  return Number(updated.numUpdatedRows) === 1;
}

async function deletePackages(db: Kysely<MetadataSchema>, key: ScanKey) {
  await db
    .deleteFrom("image_packages")
    .where("repo_uid", "=", key.repoUid)
    .where("image_digest", "=", key.digest)
    .execute();
}

async function insertPackages(
  db: Kysely<MetadataSchema>,
  key: ScanKey,
  outcome: Done,
  packages: Done["packages"],
) {
  for (let i = 0; i < packages.length; i += CHUNK) {
    await db
      .insertInto("image_packages")
      .values(
        packages.slice(i, i + CHUNK).map((p) => ({
          repo_uid: key.repoUid,
          image_digest: key.digest,
          sbom_digest: outcome.sbomDigest,
          ...p,
        })),
      )
      .execute();
  }
}
