import type { Kysely } from "kysely";
import type { MetadataSchema } from "../../store/metadata/index.ts";

/** How often one tag's pull time is written at most: retention counts in days. */
export const pullTimeResolutionMs = 3_600_000;

/** Tags remembered as recently written; beyond it the oldest is forgotten (and written again). */
const remembered = 10_000;

const recent = new WeakMap<object, Map<string, number>>();
const pending = new WeakMap<object, Set<Promise<void>>>();

/**
 * Records that tag `tag` of repo `repoUid` was pulled, for the not_pulled retention policy:
 * at most once an hour per tag and replica, and in the database only when the stored time is
 * older than that, so a busy tag costs no write per pull. Never throws: a lost pull time only
 * makes a tag look idle an hour earlier.
 */
export function touchPullTime(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  tag: string,
  log: { warn(o: object, m: string): void },
): void {
  let seen = recent.get(db);
  if (!seen) {
    seen = new Map();
    recent.set(db, seen);
  }
  const key = `${repoUid} ${tag}`;
  const now = Date.now();
  const last = seen.get(key);
  if (last !== undefined && now - last < pullTimeResolutionMs) return;
  seen.delete(key);
  seen.set(key, now);
  if (seen.size > remembered) seen.delete(seen.keys().next().value as string);
  const time = new Date(now).toISOString();
  const stale = new Date(now - pullTimeResolutionMs).toISOString();
  let writes = pending.get(db);
  if (!writes) {
    writes = new Set();
    pending.set(db, writes);
  }
  const write: Promise<void> = db
    .updateTable("tags")
    .set({ pull_time: time })
    .where("parent_uid", "=", repoUid)
    .where("name", "=", tag)
    .where((eb) => eb.or([eb("pull_time", "is", null), eb("pull_time", "<", stale)]))
    .execute()
    .then(
      () => undefined,
      (err: unknown) => log.warn({ err, tag }, "recording a tag's pull time failed"),
    )
    .finally(() => writes.delete(write));
  writes.add(write);
}

/** Waits for the pull-time writes under way on `db`, before the store closes. */
export async function settlePullTimes(db: Kysely<MetadataSchema>): Promise<void> {
  await Promise.all(pending.get(db) ?? []);
}
