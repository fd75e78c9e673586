import type { Kysely, Selectable } from "kysely";
import type { EventsTable, MetadataSchema, SubscriptionsTable } from "../store/metadata/index.ts";

/** A delivery this replica holds the lease of, with its event and subscription. */
export interface LeasedDelivery {
  subscription: SubscriptionsTable;
  event: Selectable<EventsTable>;
  eventSeq: string | number | bigint;
  attempts: number;
  createTime: string;
}

/**
 * Leases up to `limit` due deliveries for `owner` until `leaseMs` from now. Only the oldest
 * pending delivery of each subscription is due (by event seq, the commit order), so a sink
 * receives its events in order and one at a time; a later event waits while an earlier one is
 * being retried. On PostgreSQL the rows are chosen `FOR UPDATE SKIP LOCKED`, so replicas never
 * lease the same row; SQLite has a single writer, and the transaction is enough.
 */
export async function leaseDeliveries(
  db: Kysely<MetadataSchema>,
  dialect: "sqlite" | "postgres",
  owner: string,
  limit: number,
  leaseMs: number,
): Promise<LeasedDelivery[]> {
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  const until = new Date(nowMs + leaseMs).toISOString();
  return db.transaction().execute(async (trx) => {
    let due = trx
      .selectFrom("deliveries as d")
      .select(["d.subscription_uid", "d.event_seq", "d.attempts", "d.create_time"])
      .where("d.state", "=", "pending")
      .where("d.next_time", "<=", now)
      .where((eb) => eb.or([eb("d.lease_until", "is", null), eb("d.lease_until", "<", now)]))
      .where(({ not, exists, selectFrom }) =>
        not(
          exists(
            selectFrom("deliveries as e")
              .select("e.event_seq")
              .whereRef("e.subscription_uid", "=", "d.subscription_uid")
              .where("e.state", "=", "pending")
              .whereRef("e.event_seq", "<", "d.event_seq"),
          ),
        ),
      )
      .orderBy("d.event_seq")
      .limit(limit);
    if (dialect === "postgres") due = due.forUpdate().skipLocked();
    const rows = await due.execute();
    if (rows.length === 0) return [];
    await trx
      .updateTable("deliveries")
      .set({ lease_owner: owner, lease_until: until })
      .where((eb) =>
        eb.or(
          rows.map((r) =>
            eb.and([
              eb("subscription_uid", "=", r.subscription_uid),
              eb("event_seq", "=", r.event_seq),
            ]),
          ),
        ),
      )
      .execute();
    const events = await trx
      .selectFrom("events")
      .selectAll()
      .where(
        "seq",
        "in",
        rows.map((r) => r.event_seq),
      )
      .execute();
    const subscriptions = await trx
      .selectFrom("subscriptions")
      .selectAll()
      .where("uid", "in", [...new Set(rows.map((r) => r.subscription_uid))])
      .execute();
    const eventBySeq = new Map(events.map((e) => [String(e.seq), e]));
    const subscriptionByUid = new Map(subscriptions.map((s) => [s.uid, s]));
    const leased: LeasedDelivery[] = [];
    for (const r of rows) {
      const event = eventBySeq.get(String(r.event_seq));
      const subscription = subscriptionByUid.get(r.subscription_uid);
      if (event && subscription)
        leased.push({
          subscription,
          event,
          eventSeq: r.event_seq,
          attempts: r.attempts,
          createTime: r.create_time,
        });
    }
    return leased;
  });
}
