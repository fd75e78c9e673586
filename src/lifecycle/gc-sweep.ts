import { type Kysely, sql } from "kysely";
import type { BlobStore } from "../store/blobs/index.ts";
import { type MetadataSchema, runInTransaction } from "../store/metadata/index.ts";
import type { GcCutoffs } from "./gc-mark.ts";
import { dropManifestRefs } from "./manifest-refs.ts";
import { lockBlobs, lockLinks, lockManifests } from "./row-locks.ts";

type Db = Kysely<MetadataSchema>;

/** Rows one sweeping transaction deletes at most: short transactions, pushes wait little. */
export const sweepBatch = 200;

/**
 * Deletes the manifests of `digests` in repo `repoUid` that are still dead once locked: a push
 * that relied on one since the mark (a tag, a history record, an index or a referrer that is
 * not itself being deleted, a re-push) keeps it (DESIGN §8b). Returns the digests deleted.
 */
export async function sweepManifests(
  db: Db,
  repoUid: string,
  digests: readonly string[],
  cutoffs: GcCutoffs,
): Promise<string[]> {
  if (digests.length === 0) return [];
  return runInTransaction(db, async (trx) => {
    await lockManifests(trx, repoUid, digests);
    const batch = new Set(digests);
    const rows = await trx
      .selectFrom("manifests")
      .select(["digest", "subject_digest"])
      .where("repo_uid", "=", repoUid)
      .where("digest", "in", [...digests])
      .where(sql<string>`coalesce(last_time, create_time)`, "<", cutoffs.grace)
      .execute();
    const inUse = new Set<string>();
    const tagged = await trx
      .selectFrom("tags")
      .select("digest")
      .where("parent_uid", "=", repoUid)
      .where("digest", "in", [...digests])
      .execute();
    for (const t of tagged) inUse.add(t.digest);
    const recorded = await trx
      .selectFrom("tag_history")
      .select("digest")
      .where("repo_uid", "=", repoUid)
      .where("digest", "in", [...digests])
      .where("update_time", ">=", cutoffs.history)
      .execute();
    for (const h of recorded) inUse.add(h.digest);
    const parents = await trx
      .selectFrom("manifest_refs")
      .select(["manifest_digest", "digest"])
      .where("repo_uid", "=", repoUid)
      .where("digest", "in", [...digests])
      .execute();
    for (const p of parents) if (!batch.has(p.manifest_digest)) inUse.add(p.digest);
    const subjects = [...new Set(rows.map((r) => r.subject_digest).filter((d) => d !== null))];
    const livingSubjects = new Set(
      subjects.length === 0
        ? []
        : (
            await trx
              .selectFrom("manifests")
              .select("digest")
              .where("repo_uid", "=", repoUid)
              .where("digest", "in", subjects)
              .execute()
          )
            .map((m) => m.digest)
            .filter((d) => !batch.has(d)),
    );
    const doomed = rows
      .filter((r) => !inUse.has(r.digest))
      .filter((r) => !(r.subject_digest && livingSubjects.has(r.subject_digest)))
      .map((r) => r.digest);
    if (doomed.length === 0) return [];
    await trx
      .deleteFrom("manifests")
      .where("repo_uid", "=", repoUid)
      .where("digest", "in", doomed)
      .execute();
    await dropManifestRefs(trx, repoUid, doomed);
    return doomed;
  });
}

/**
 * Deletes the links of `digests` in repo `repoUid` that are still dead once locked: older than
 * the grace window and referenced by no manifest of the repo. Returns how many it deleted.
 */
export async function sweepLinks(
  db: Db,
  repoUid: string,
  digests: readonly string[],
  cutoffs: GcCutoffs,
): Promise<number> {
  if (digests.length === 0) return 0;
  return runInTransaction(db, async (trx) => {
    await lockLinks(trx, repoUid, digests);
    const gone = await trx
      .deleteFrom("repo_blobs")
      .where("repo_uid", "=", repoUid)
      .where("digest", "in", [...digests])
      .where(sql<string>`coalesce(last_time, create_time)`, "<", cutoffs.grace)
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("manifest_refs as r")
              .innerJoin("manifests as m", (join) =>
                join
                  .onRef("m.repo_uid", "=", "r.repo_uid")
                  .onRef("m.digest", "=", "r.manifest_digest"),
              )
              .select("r.digest")
              .whereRef("r.repo_uid", "=", "repo_blobs.repo_uid")
              .whereRef("r.digest", "=", "repo_blobs.digest"),
          ),
        ),
      )
      .executeTakeFirst();
    return Number(gone.numDeletedRows);
  });
}

/** What deleting unreferenced bytes achieved. */
export interface ContentSwept {
  blobs: number;
  bytes: number;
}

/**
 * Deletes the bytes no link, manifest or write under way reaches, older than the grace window:
 * each batch is doomed in one transaction (after which no push may rely on those bytes and a
 * write of them waits), deleted from the blob store in one batch, then forgotten. Rows a
 * crashed collection left doomed are finished first.
 */
export async function sweepContent(
  db: Db,
  blobs: BlobStore,
  runUid: string,
  cutoffs: GcCutoffs,
  stopped: () => boolean,
  pace: () => Promise<void> = async () => {},
): Promise<ContentSwept> {
  const result: ContentSwept = { blobs: 0, bytes: 0 };
  const finish = async (rows: { digest: string; size: unknown }[], doomedBy: string) => {
    const digests = rows.map((r) => r.digest);
    if (blobs.deleteMany) await blobs.deleteMany(digests);
    else for (const d of digests) await blobs.delete(d);
    await db
      .deleteFrom("blobs")
      .where("doomed", "=", doomedBy)
      .where("digest", "in", digests)
      .execute();
    result.blobs += rows.length;
    for (const r of rows) result.bytes += Number(r.size);
  };
  const leftovers = await db
    .selectFrom("blobs")
    .select(["digest", "size", "doomed"])
    .where("doomed", "is not", null)
    .execute();
  for (const row of leftovers) await finish([row], row.doomed as string);
  let after = "";
  while (!stopped()) {
    await pace();
    const page = await unreferenced(db, cutoffs, after).execute();
    if (page.length === 0) break;
    after = page[page.length - 1].digest;
    const doomed = await runInTransaction(db, async (trx) => {
      await lockBlobs(
        trx,
        page.map((p) => p.digest),
      );
      return unreferenced(trx, cutoffs, "")
        .where(
          "digest",
          "in",
          page.map((p) => p.digest),
        )
        .execute()
        .then(async (rows) => {
          if (rows.length === 0) return rows;
          await trx
            .updateTable("blobs")
            .set({ doomed: runUid })
            .where(
              "digest",
              "in",
              rows.map((r) => r.digest),
            )
            .execute();
          return rows;
        });
    });
    if (doomed.length > 0) await finish(doomed, runUid);
  }
  return result;
}

/** Blob rows past the grace window that nothing reaches, by digest after `after`. */
export function unreferenced(db: Db, cutoffs: GcCutoffs, after: string) {
  return db
    .selectFrom("blobs")
    .select(["digest", "size"])
    .where("doomed", "is", null)
    .where("digest", ">", after)
    .where(sql<string>`coalesce(last_time, create_time)`, "<", cutoffs.grace)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("repo_blobs")
            .select("digest")
            .whereRef("repo_blobs.digest", "=", "blobs.digest"),
        ),
      ),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("manifests")
            .select("digest")
            .whereRef("manifests.digest", "=", "blobs.digest"),
        ),
      ),
    )
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("blob_claims")
            .select("digest")
            .whereRef("blob_claims.digest", "=", "blobs.digest")
            .where("blob_claims.create_time", ">=", cutoffs.claims),
        ),
      ),
    )
    .orderBy("digest")
    .limit(sweepBatch * 5);
}
