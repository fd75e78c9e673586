import { type Kysely, PostgresAdapter } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";

type Db = Kysely<MetadataSchema>;

/** Whether `db` talks to PostgreSQL (SQLite's transactions take the whole database at once). */
export function isPostgres(db: Db): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

/**
 * Locks the `blobs` rows of `digests` until the transaction ends and returns them. On
 * PostgreSQL a collection and a push that touch the same row take turns, and the statement
 * after this one sees what the other committed; SQLite's `begin immediate` already serialises
 * every writing transaction.
 */
export async function lockBlobs(db: Db, digests: readonly string[]) {
  if (digests.length === 0) return [];
  const query = db
    .selectFrom("blobs")
    .select(["digest", "size", "doomed", "last_time"])
    .where("digest", "in", [...digests]);
  return isPostgres(db) ? query.forUpdate().execute() : query.execute();
}

/** Locks the links of `digests` in repo `repoUid` (see lockBlobs). */
export async function lockLinks(db: Db, repoUid: string, digests: readonly string[]) {
  if (digests.length === 0 || !isPostgres(db)) return;
  await db
    .selectFrom("repo_blobs")
    .select("digest")
    .where("repo_uid", "=", repoUid)
    .where("digest", "in", [...digests])
    .forUpdate()
    .execute();
}

/** Locks the manifests of `digests` in repo `repoUid` (see lockBlobs). */
export async function lockManifests(db: Db, repoUid: string, digests: readonly string[]) {
  if (digests.length === 0 || !isPostgres(db)) return;
  await db
    .selectFrom("manifests")
    .select("digest")
    .where("repo_uid", "=", repoUid)
    .where("digest", "in", [...digests])
    .forUpdate()
    .execute();
}
