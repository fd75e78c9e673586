import type { Kysely, Selectable } from "kysely";
import type { EventsTable, MetadataSchema, SubscriptionsTable } from "../store/metadata/index.ts";

/** One leased delivery: its event, and what the outcome update needs. */
export interface LeasedDelivery {
  event: Selectable<EventsTable>;
  eventSeq: string | number | bigint;
  attempts: number;
  createTime: string;
}

/** Deliveries of one subscription this replica holds the leases of, to send in this order. */
export interface LeasedBatch {
  subscription: SubscriptionsTable;
  deliveries: LeasedDelivery[];
}

type Row = Pick<LeasedDelivery, "eventSeq" | "attempts" | "createTime"> & {
  subscriptionUid: string;
};

/**
 * Leases work for `owner` until `leaseMs` from now: up to `limit` subscriptions whose oldest
 * pending delivery (by event seq, the commit order) is due, each with up to `batch` of its
 * pending deliveries from that one on. A sink thus receives its events in order, one at a
 * time, and a later event waits while an earlier one is retried. On PostgreSQL rows are taken
 * `FOR UPDATE SKIP LOCKED`, so replicas never lease the same row; SQLite has a single writer,
 * and the transaction is enough.
 */
export async function leaseDeliveries(
  db: Kysely<MetadataSchema>,
  dialect: "sqlite" | "postgres",
  owner: string,
  options: { limit: number; batch: number; leaseMs: number },
): Promise<LeasedBatch[]> {
  const nowMs = Date.now();
  const now = new Date(nowMs).toISOString();
  const until = new Date(nowMs + options.leaseMs).toISOString();
  return db.transaction().execute(async (trx) => {
    // Each subscription's head: its oldest pending delivery. Found first on its own, by the
    // state index, so the work is linear in the backlog whatever plan the store picks.
    const heads = await trx
      .selectFrom("deliveries")
      .select((eb) => ["subscription_uid", eb.fn.min("event_seq").as("head")])
      .where("state", "=", "pending")
      .groupBy("subscription_uid")
      .execute();
    if (heads.length === 0) return [];
    let due = trx
      .selectFrom("deliveries")
      .select(["subscription_uid", "event_seq", "attempts", "create_time"])
      .where((eb) =>
        eb(
          eb.refTuple("subscription_uid", "event_seq"),
          "in",
          heads.map((h) => eb.tuple(h.subscription_uid, h.head)),
        ),
      )
      .where("state", "=", "pending")
      .where("next_time", "<=", now)
      .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
      .orderBy("event_seq")
      .limit(options.limit);
    if (dialect === "postgres") due = due.forUpdate().skipLocked();
    const leads = await due.execute();
    const rows: Row[] = [];
    for (const lead of leads) {
      // The rows after a head are pending and waiting on it: never tried, so due at once.
      let next = trx
        .selectFrom("deliveries")
        .select(["subscription_uid", "event_seq", "attempts", "create_time"])
        .where("subscription_uid", "=", lead.subscription_uid)
        .where("event_seq", ">", lead.event_seq)
        .where("state", "=", "pending")
        .where((eb) => eb.or([eb("lease_until", "is", null), eb("lease_until", "<", now)]))
        .orderBy("event_seq")
        .limit(options.batch - 1);
      if (dialect === "postgres") next = next.forUpdate().skipLocked();
      for (const r of [lead, ...(options.batch > 1 ? await next.execute() : [])])
        rows.push({
          subscriptionUid: r.subscription_uid,
          eventSeq: r.event_seq,
          attempts: r.attempts,
          createTime: r.create_time,
        });
    }
    if (rows.length === 0) return [];
    await trx
      .updateTable("deliveries")
      .set({ lease_owner: owner, lease_until: until })
      .where((eb) =>
        eb(
          eb.refTuple("subscription_uid", "event_seq"),
          "in",
          rows.map((r) => eb.tuple(r.subscriptionUid, r.eventSeq)),
        ),
      )
      .execute();
    const events = await trx
      .selectFrom("events")
      .selectAll()
      .where("seq", "in", [...new Set(rows.map((r) => String(r.eventSeq)))])
      .execute();
    const subscriptions = await trx
      .selectFrom("subscriptions")
      .selectAll()
      .where(
        "uid",
        "in",
        leads.map((l) => l.subscription_uid),
      )
      .execute();
    const eventBySeq = new Map(events.map((e) => [String(e.seq), e]));
    const batches = new Map(
      subscriptions.map((s) => [s.uid, { subscription: s, deliveries: [] as LeasedDelivery[] }]),
    );
    for (const { subscriptionUid, ...r } of rows) {
      const event = eventBySeq.get(String(r.eventSeq));
      if (event) batches.get(subscriptionUid)?.deliveries.push({ event, ...r });
    }
    return [...batches.values()].filter((b) => b.deliveries.length > 0);
  });
}
