import { randomUUID } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely } from "kysely";
import { type MetadataSchema, runInTransaction } from "../store/metadata/index.ts";
import { lockBlobs } from "./row-locks.ts";

type Db = Kysely<MetadataSchema>;

/** A claim older than this belongs to a write that died: the collector no longer honours it. */
export const claimTtlMs = 3_600_000;

/** Longest a write waits for a collection to finish deleting the same bytes. */
const doomWaitMs = 120_000;

/**
 * Claims `digest` before its bytes are written to the blob store, so a collection never
 * deletes them between the write and the link that makes them reachable (DESIGN §8b). When a
 * collection is deleting those very bytes (the row is doomed), waits until it has finished,
 * since bytes written now could be deleted after. Returns the claim's id, for
 * {@link releaseClaim} in the transaction that links the bytes (or after a failed write).
 */
export async function claimContent(db: Db, digest: string): Promise<string> {
  const deadline = Date.now() + doomWaitMs;
  for (;;) {
    const id = randomUUID();
    const claimed = await runInTransaction(db, async (trx) => {
      const [row] = await lockBlobs(trx, [digest]);
      if (row?.doomed) return false;
      const time = new Date().toISOString();
      await trx.insertInto("blob_claims").values({ id, digest, create_time: time }).execute();
      if (row) {
        await trx
          .updateTable("blobs")
          .set({ last_time: time })
          .where("digest", "=", digest)
          .execute();
      }
      return true;
    });
    if (claimed) return id;
    if (Date.now() > deadline) throw new Error(`blob ${digest} is still being collected`);
    await sleep(50);
  }
}

/** Drops a claim (in the linking transaction, or once a write failed). */
export async function releaseClaim(db: Db, id: string): Promise<void> {
  await db.deleteFrom("blob_claims").where("id", "=", id).execute();
}

/**
 * Records that `digest` (`size` bytes) is in the blob store and relied on now, in the
 * caller's transaction; its claim, if any, ends with it.
 */
export async function touchBlob(db: Db, digest: string, size: number, claimId?: string) {
  const time = new Date().toISOString();
  await db
    .insertInto("blobs")
    .values({ digest, size, create_time: time, last_time: time, doomed: null })
    .onConflict((oc) => oc.column("digest").doUpdateSet({ last_time: time }))
    .execute();
  if (claimId) await releaseClaim(db, claimId);
}
