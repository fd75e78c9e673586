import type { Kysely } from "kysely";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import type { SbomRecord, ScanOutcome } from "./scan-image.ts";
import { requeue } from "./scan-queue.ts";

/** One claimed queue row: the claim time is the claim's token. */
export interface ScanKey {
  repoUid: string;
  digest: string;
  claim: string;
}

/**
 * Writes a scan's outcome, each write conditional on the claim still holding. True when a
 * finished scan was written (the image is then to be matched).
 */
export async function settleScan(
  db: Kysely<MetadataSchema>,
  key: ScanKey,
  outcome: ScanOutcome,
): Promise<boolean> {
  if (outcome.kind === "done") return finishScan(db, key, outcome);
  if (outcome.kind === "attestation") {
    await recordAttestation(db, key.repoUid, key.digest, outcome.images);
  }
  if (outcome.kind === "gone" || outcome.kind === "attestation") {
    await db
      .deleteFrom("image_scans")
      .where("repo_uid", "=", key.repoUid)
      .where("digest", "=", key.digest)
      .where("claim_time", "=", key.claim)
      .execute();
    return false;
  }
  await recordSboms(db, key.repoUid, key.digest, outcome.sboms);
  await db
    .updateTable("image_scans")
    .set((eb) => ({
      state: "failed",
      reason: outcome.reason,
      attempts: eb("attempts", "+", 1),
      claim_time: null,
      update_time: new Date().toISOString(),
    }))
    .where("repo_uid", "=", key.repoUid)
    .where("digest", "=", key.digest)
    .where("claim_time", "=", key.claim)
    .execute();
  return false;
}

/**
 * After a store error: back to pending, due again in `delayMs` × attempts (the claim only
 * takes rows whose `update_time` has passed), or failed with `message` at the last attempt.
 * True when this was the last attempt.
 */
export async function recordRetry(
  db: Kysely<MetadataSchema>,
  key: ScanKey,
  message: string,
  maxAttempts: number,
  delayMs: number,
): Promise<boolean> {
  const row = await db
    .selectFrom("image_scans")
    .select("attempts")
    .where("repo_uid", "=", key.repoUid)
    .where("digest", "=", key.digest)
    .executeTakeFirst();
  const attempts = (row?.attempts ?? 0) + 1;
  const last = attempts >= maxAttempts;
  await db
    .updateTable("image_scans")
    .set({
      state: last ? "failed" : "pending",
      reason: last ? `the scan failed ${attempts} times, last: ${message}` : "",
      attempts,
      claim_time: null,
      update_time: new Date(Date.now() + (last ? 0 : delayMs * attempts)).toISOString(),
    })
    .where("repo_uid", "=", key.repoUid)
    .where("digest", "=", key.digest)
    .where("claim_time", "=", key.claim)
    .execute();
  return last;
}

/** Puts a claimed row back to pending as it was, for another worker or a restart. */
export async function releaseClaim(db: Kysely<MetadataSchema>, key: ScanKey): Promise<void> {
  await db
    .updateTable("image_scans")
    .set({ state: "pending", claim_time: null })
    .where("repo_uid", "=", key.repoUid)
    .where("digest", "=", key.digest)
    .where("claim_time", "=", key.claim)
    .execute();
}

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
  outcome: Extract<ScanOutcome, { kind: "done" }>,
): Promise<boolean> {
  return db.transaction().execute(async (trx) => {
    const updated = await trx
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
    if (Number(updated.numUpdatedRows) !== 1) return false;
    await trx
      .deleteFrom("image_packages")
      .where("repo_uid", "=", key.repoUid)
      .where("image_digest", "=", key.digest)
      .execute();
    for (let i = 0; i < outcome.packages.length; i += CHUNK) {
      await trx
        .insertInto("image_packages")
        .values(
          outcome.packages.slice(i, i + CHUNK).map((p) => ({
            repo_uid: key.repoUid,
            image_digest: key.digest,
            sbom_digest: outcome.sbomDigest,
            ...p,
          })),
        )
        .execute();
    }
    await recordSboms(trx, key.repoUid, key.digest, outcome.sboms);
    return true;
  });
}

/**
 * Records BuildKit attestation manifest `attestation` as an SBOM of each of `images` that the
 * repository holds, and sends those images back to the queue, where it is read like a
 * referrer. Until then its row says parsed with no packages; the rescan writes the truth.
 */
export async function recordAttestation(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  attestation: string,
  images: readonly string[],
): Promise<void> {
  const present = await db
    .selectFrom("manifests")
    .select("digest")
    .where("repo_uid", "=", repoUid)
    .where("digest", "in", images)
    .execute();
  const time = new Date().toISOString();
  for (const { digest } of present) {
    await db
      .insertInto("image_sboms")
      .values({
        repo_uid: repoUid,
        image_digest: digest,
        sbom_digest: attestation,
        source: "pushed",
        format: "in-toto",
        state: "parsed",
        reason: "",
        package_count: 0,
        create_time: time,
      })
      .onConflict((oc) => oc.columns(["repo_uid", "image_digest", "sbom_digest"]).doNothing())
      .execute();
    await requeue(db, repoUid, digest, time);
  }
}
