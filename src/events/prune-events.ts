import type { Kysely } from "kysely";
import { type MetadataSchema, runInTransaction } from "../store/metadata/index.ts";

/** What one prune deleted. */
export interface PruneResult {
  events: number;
  deliveries: number;
}

/** Options of {@link pruneEvents}. */
export interface PruneOptions {
  /** Events recorded before this time (ISO 8601, as `events.time`) are deleted. */
  before: string;
  /** Events read and deleted per transaction. Default 500. */
  batch?: number;
  /** Asked between batches: true stops the prune (the server is closing). */
  stopped?: () => boolean;
}

/**
 * Deletes the events recorded before `before`, oldest first, with their delivered and
 * dead-lettered deliveries. An event with a delivery still pending stays, and so does that
 * delivery, until it ends. Events are walked in seq order, which follows their time but for
 * clock skew between replicas: the walk stops at the first event that is not old yet, and the
 * next prune goes on from there.
 */
export async function pruneEvents(
  db: Kysely<MetadataSchema>,
  options: PruneOptions,
): Promise<PruneResult> {
  const batch = options.batch ?? 500;
  const result: PruneResult = { events: 0, deliveries: 0 };
  let after: string | number | bigint = -1;
  while (!options.stopped?.()) {
    const rows = await db
      .selectFrom("events")
      .select(["seq", "time"])
      .where("seq", ">", after)
      .orderBy("seq")
      .limit(batch)
      .execute();
    const firstYoung = rows.findIndex((r) => r.time >= options.before);
    const old = (firstYoung === -1 ? rows : rows.slice(0, firstYoung)).map((r) => r.seq);
    if (old.length === 0) break;
    await runInTransaction(db, async (trx) => {
      const deliveries = await trx
        .deleteFrom("deliveries")
        .where("event_seq", "in", old)
        .where("state", "<>", "pending")
        .executeTakeFirst();
      const events = await trx
        .deleteFrom("events")
        .where("seq", "in", old)
        .where(({ not, exists, selectFrom }) =>
          not(
            exists(
              selectFrom("deliveries")
                .select("event_seq")
                .whereRef("deliveries.event_seq", "=", "events.seq"),
            ),
          ),
        )
        .executeTakeFirst();
      result.deliveries += Number(deliveries.numDeletedRows);
      result.events += Number(events.numDeletedRows);
    });
    if (firstYoung !== -1 || rows.length < batch) break;
    after = old[old.length - 1];
  }
  return result;
}
