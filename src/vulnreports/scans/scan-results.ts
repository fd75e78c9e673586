import type { Kysely } from "kysely";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { finishBigScan, finishScan, recordSboms } from "./finish-scan.ts";
import type { ScanOutcome } from "./scan-image.ts";
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
  rowsPerTransaction = Number.POSITIVE_INFINITY,
): Promise<boolean> {
  if (outcome.kind === "done") {
    return outcome.packages.length > rowsPerTransaction
      ? finishBigScan(db, key, outcome, rowsPerTransaction)
      : finishScan(db, key, outcome);
  }
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
