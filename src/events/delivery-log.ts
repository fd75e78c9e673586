import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { invalidArgument, notFound } from "../errors/index.ts";
import {
  type Delivery,
  DeliverySchema,
  type ListDeliveriesRequest,
  type ListDeliveriesResponseSchema,
} from "../gen/lading/events/v2/subscriptions_pb.js";
import { defaultPageSize, maxPageSize } from "../lists/index.ts";
import { now } from "../rpc/index.ts";
import type { DeliveriesTable, EventsTable, SubscriptionsTable } from "../store/metadata/index.ts";
import { newEventId } from "./event-id.ts";
import { type EventsContext, eventsDomain } from "./events-context.ts";
import type { EventActor } from "./record-event.ts";

const states = ["pending", "delivered", "dead"];

type Row = DeliveriesTable & Pick<EventsTable, "id" | "type" | "time">;

/** Converts a delivery joined with its event to the API message. */
export function deliveryFromRow(row: Row): Delivery {
  return create(DeliverySchema, {
    eventId: row.id,
    eventType: row.type,
    eventTime: row.time,
    state: row.state,
    attempts: row.attempts,
    lastStatus: row.last_status,
    lastError: row.last_error,
    latencyMs: row.latency_ms,
    nextRetryTime: row.state === "pending" ? row.next_time : "",
    createTime: row.create_time,
    updateTime: row.update_time,
  });
}

/** The delivery log of a subscription, redelivery and the ping of `:test`. */
export function createDeliveryLog(ctx: EventsContext, source: () => string) {
  const { db } = ctx;
  const joined = () =>
    db
      .selectFrom("deliveries")
      .innerJoin("events", "events.seq", "deliveries.event_seq")
      .selectAll("deliveries")
      .select(["events.id", "events.type", "events.time"]);

  async function load(subscriptionUid: string, eventSeq: string | number | bigint) {
    const row = await joined()
      .where("deliveries.subscription_uid", "=", subscriptionUid)
      .where("deliveries.event_seq", "=", eventSeq)
      .executeTakeFirstOrThrow();
    return deliveryFromRow(row);
  }

  return {
    /** Newest event first, keyset-paged on the event's seq. */
    async list(
      subscription: SubscriptionsTable,
      req: ListDeliveriesRequest,
    ): Promise<MessageInitShape<typeof ListDeliveriesResponseSchema>> {
      const v = [];
      if (req.state !== "" && !states.includes(req.state))
        v.push({ field: "state", description: "must be pending, delivered or dead" });
      if (req.pageSize < 0) v.push({ field: "page_size", description: "must not be negative" });
      const binding = { uid: subscription.uid, state: req.state };
      const cursor = ctx.pageTokens.read(req.pageToken, binding);
      if (cursor.error) v.push(cursor.error);
      if (v.length > 0) throw invalidArgument(eventsDomain, v);
      const size = Math.min(req.pageSize || defaultPageSize, maxPageSize);
      let query = joined()
        .where("deliveries.subscription_uid", "=", subscription.uid)
        .orderBy("deliveries.event_seq", "desc")
        .limit(size + 1);
      if (req.state !== "") query = query.where("deliveries.state", "=", req.state);
      if (cursor.value) query = query.where("deliveries.event_seq", "<", cursor.value[0]);
      const rows = await query.execute();
      const page = rows.slice(0, size);
      const last = page.at(-1);
      return {
        deliveries: page.map(deliveryFromRow),
        nextPageToken:
          rows.length > size && last
            ? ctx.pageTokens.issue(binding, [String(last.event_seq), ""])
            : "",
      };
    },

    /**
     * Makes a delivery pending and due now, whatever its state. The retry window restarts:
     * the delivery's create_time becomes now, so a redelivered dead event gets a full window.
     */
    async redeliver(subscription: SubscriptionsTable, eventId: string): Promise<Delivery> {
      if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(eventId))
        throw invalidArgument(eventsDomain, [
          { field: "event_id", description: "must be an event id (a lower-case UUID)" },
        ]);
      const event = await db
        .selectFrom("events")
        .select("seq")
        .where("id", "=", eventId)
        .executeTakeFirst();
      const time = now();
      const updated = event
        ? await db
            .updateTable("deliveries")
            .set({
              state: "pending",
              next_time: time,
              lease_owner: "",
              lease_until: null,
              create_time: time,
              update_time: time,
            })
            .where("subscription_uid", "=", subscription.uid)
            .where("event_seq", "=", event.seq)
            .executeTakeFirst()
        : undefined;
      if (!event || Number(updated?.numUpdatedRows ?? 0) === 0)
        throw notFound(eventsDomain, "delivery", eventId);
      ctx.wake();
      return load(subscription.uid, event.seq);
    },

    /** Records a dev.lading.events.ping.v1 event with one delivery: to this subscription. */
    async ping(subscription: SubscriptionsTable, actor: EventActor): Promise<Delivery> {
      const time = now();
      const seq = await db.transaction().execute(async (trx) => {
        const inserted = await trx
          .insertInto("events")
          .values({
            id: newEventId(),
            type: "dev.lading.events.ping.v1",
            source: source(),
            subject: subscription.uid,
            group_uid: subscription.parent_uid,
            time,
            body_type: "",
            extensions: "{}",
            data: JSON.stringify({ actor, body: { uid: subscription.uid } }),
          })
          .returning("seq")
          .executeTakeFirstOrThrow();
        await trx
          .insertInto("deliveries")
          .values({
            subscription_uid: subscription.uid,
            event_seq: inserted.seq,
            state: "pending",
            attempts: 0,
            next_time: time,
            lease_owner: "",
            lease_until: null,
            last_status: 0,
            last_error: "",
            latency_ms: 0,
            create_time: time,
            update_time: time,
          })
          .execute();
        return inserted.seq;
      });
      ctx.wake();
      return load(subscription.uid, seq);
    },
  };
}
