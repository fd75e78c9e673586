import { type Kysely, sql } from "kysely";
import { now } from "../rpc/index.ts";
import type { MetadataSchema, TagsTable } from "../store/metadata/index.ts";
import { newChildUid } from "../uidp/index.ts";

/** Most history records one request returns (spec: registry tag history, Limits 1). */
export const maxHistoryRecords = 1000;

/** One history record, as the history endpoint serves it. */
export interface HistoryRecord {
  updateTimestamp: string;
  digest: string;
}

/** How a move is recorded. */
export interface MoveOptions {
  /** The history record's action: move (default) or restore. */
  action?: "move" | "restore";
  /** The uid a tag created by this move gets (a restored tag keeps its old one); default new. */
  uid?: string;
}

/** Actions of history records that point a tag at their digest (not deletions). */
export const pointingActions = ["move", "restore"];

/**
 * Records the deletion of tag row `tag` (already deleted or about to be, in the caller's
 * transaction) as a history record with the digest it named, so history shows when it went.
 */
export async function recordTagDeletion(
  db: Kysely<MetadataSchema>,
  tag: Pick<TagsTable, "uid" | "parent_uid" | "name" | "digest" | "history_seq">,
  action: "delete" | "expire" = "delete",
): Promise<void> {
  const previous = await db
    .selectFrom("tag_history")
    .select("update_time")
    .where("repo_uid", "=", tag.parent_uid)
    .where("tag", "=", tag.name)
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  const current = now();
  await db
    .insertInto("tag_history")
    .values({
      repo_uid: tag.parent_uid,
      tag: tag.name,
      seq: (BigInt(tag.history_seq) + 1n).toString(),
      digest: tag.digest,
      update_time: previous && previous.update_time > current ? previous.update_time : current,
      action,
      tag_uid: tag.uid,
    })
    .execute();
}

/**
 * Points tag `name` of repo `repoUid` at `digest`, creating it if needed, and appends
 * `(digest, updateTimestamp)` to its history in the same transaction. Concurrent moves of one
 * tag are serialised on the tag's row, so every move is recorded, in commit order, with
 * timestamps that never go backwards. Returns the tag row as it now is.
 */
export async function moveTag(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  name: string,
  digest: string,
  options: MoveOptions = {},
): Promise<TagsTable> {
  return db.transaction().execute(async (trx) => {
    const created = now();
    // A tag deleted and pushed again continues its history where it stopped.
    const last = await trx
      .selectFrom("tag_history")
      .select((eb) => eb.fn.max("seq").as("seq"))
      .where("repo_uid", "=", repoUid)
      .where("tag", "=", name)
      .executeTakeFirst();
    await trx
      .insertInto("tags")
      .values({
        uid: options.uid ?? newChildUid(repoUid),
        parent_uid: repoUid,
        name,
        digest,
        deprecated: 0,
        history_seq: String(last?.seq ?? 0),
        create_time: created,
        update_time: created,
      })
      .onConflict((oc) => oc.columns(["parent_uid", "name"]).doNothing())
      .execute();
    // Taking the row lock first makes every later step of concurrent moves wait their turn.
    const locked = await trx
      .updateTable("tags")
      .set({ history_seq: sql`history_seq + 1` })
      .where("parent_uid", "=", repoUid)
      .where("name", "=", name)
      .returning(["history_seq", "uid"])
      .executeTakeFirstOrThrow();
    const seq = BigInt(locked.history_seq);
    const previous = await trx
      .selectFrom("tag_history")
      .select("update_time")
      .where("repo_uid", "=", repoUid)
      .where("tag", "=", name)
      .orderBy("seq", "desc")
      .limit(1)
      .executeTakeFirst();
    const current = now();
    const time = previous && previous.update_time > current ? previous.update_time : current;
    await trx
      .insertInto("tag_history")
      .values({
        repo_uid: repoUid,
        tag: name,
        seq: seq.toString(),
        digest,
        update_time: time,
        action: options.action ?? "move",
        tag_uid: locked.uid,
      })
      .execute();
    return trx
      .updateTable("tags")
      .set({ digest, update_time: time })
      .where("parent_uid", "=", repoUid)
      .where("name", "=", name)
      .returningAll()
      .executeTakeFirstOrThrow();
  });
}

/**
 * The history of tag `name`, oldest first, at most 1000 records, limited to
 * `start <= updateTimestamp <= end` when given (both bounds inclusive).
 */
export async function readHistory(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  name: string,
  window: { start?: string; end?: string } = {},
): Promise<HistoryRecord[]> {
  let query = db
    .selectFrom("tag_history")
    .select(["digest", "update_time"])
    .where("repo_uid", "=", repoUid)
    .where("tag", "=", name)
    .where("action", "in", pointingActions);
  if (window.start) query = query.where("update_time", ">=", window.start);
  if (window.end) query = query.where("update_time", "<=", window.end);
  const rows = await query.orderBy("update_time").orderBy("seq").limit(maxHistoryRecords).execute();
  return rows.map((r) => ({ updateTimestamp: r.update_time, digest: r.digest }));
}
