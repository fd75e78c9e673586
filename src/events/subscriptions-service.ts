import { create, toJson } from "@bufbuild/protobuf";
import { invalidArgument } from "../errors/index.ts";
import {
  type Subscription,
  SubscriptionSchema,
  SubscriptionsService,
} from "../gen/lading/events/v2/subscriptions_pb.js";
import {
  type BoundService,
  bindService,
  defineResource,
  now,
  requireParentGroup,
  Violations,
} from "../rpc/index.ts";
import type { SubscriptionsTable } from "../store/metadata/index.ts";
import { newChildUid } from "../uidp/index.ts";
import { createDeliveryLog } from "./delivery-log.ts";
import { actorOf, type EventsContext, eventsDomain } from "./events-context.ts";
import { recordEvent } from "./record-event.ts";
import { sinkProblem } from "./sink-url.ts";

/** Longest type prefix accepted; event types are short dotted names. */
const maxPrefixLength = 256;

/** Converts a stored row to the API message. */
export function subscriptionFromRow(row: SubscriptionsTable): Subscription {
  return create(SubscriptionSchema, {
    uid: row.uid,
    sink: row.sink,
    typePrefix: row.type_prefix,
    createTime: row.create_time,
    updateTime: row.update_time,
  });
}

/** Subscriptions as the API lists and gets them. */
export const subscriptionResource = defineResource({
  table: "subscriptions",
  domain: eventsDomain,
  type: "subscription",
  see: "subscriptions.list",
  sortFields: {
    uid: { column: "uid" },
    created_at: { column: "create_time" },
    updated_at: { column: "update_time" },
  },
  toMessage: subscriptionFromRow,
});

/** The SubscriptionsService implementation. */
export function createSubscriptionsService(ctx: EventsContext): BoundService {
  const { db } = ctx;
  const source = () => `${ctx.apiUrl()}/events/v2/subscriptions`;
  const deliveries = createDeliveryLog(ctx, source);

  return bindService(SubscriptionsService, {
    async listSubscriptions(req, call) {
      const page = await subscriptionResource.list(ctx, call, req);
      return { ...page, subscriptions: page.items };
    },

    async getSubscription(req, call) {
      return subscriptionResource.get(ctx, call, req.uid);
    },

    async createSubscription(req, call) {
      const subscription = req.subscription ?? create(SubscriptionSchema);
      const v = new Violations().uid("parent", req.parent);
      const problem = sinkProblem(subscription.sink, ctx.outbound);
      if (problem) v.add("sink", problem);
      if (subscription.typePrefix.length > maxPrefixLength)
        v.add("type_prefix", `must be at most ${maxPrefixLength} characters`);
      else if (!/^[a-z0-9._-]*$/.test(subscription.typePrefix))
        v.add("type_prefix", "must contain only a-z, 0-9, '.', '_' and '-'");
      if (!v.empty) throw invalidArgument(eventsDomain, v.list);
      await requireParentGroup(db, call, req.parent, "subscriptions.create", eventsDomain);
      const time = now();
      const row: SubscriptionsTable = {
        uid: newChildUid(req.parent),
        parent_uid: req.parent,
        sink: subscription.sink,
        type_prefix: subscription.typePrefix,
        create_time: time,
        update_time: time,
      };
      const created = subscriptionFromRow(row);
      await db.transaction().execute(async (trx) => {
        await trx.insertInto("subscriptions").values(row).execute();
        // Recorded after the insert: the new subscription receives its own creation first.
        await recordEvent(trx, {
          type: "dev.lading.events.subscription.created.v1",
          source: source(),
          subject: row.uid,
          groupUid: row.parent_uid,
          actor: actorOf(call),
          body: toJson(SubscriptionSchema, created),
          bodyType: SubscriptionSchema.typeName,
        });
      });
      ctx.wake();
      return created;
    },

    async deleteSubscription(req, call) {
      const row = await subscriptionResource.load(ctx, call, req.uid, {
        act: "subscriptions.delete",
      });
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom("deliveries").where("subscription_uid", "=", row.uid).execute();
        await trx.deleteFrom("subscriptions").where("uid", "=", row.uid).execute();
        await recordEvent(trx, {
          type: "dev.lading.events.subscription.deleted.v1",
          source: source(),
          subject: row.uid,
          groupUid: row.parent_uid,
          actor: actorOf(call),
          body: { uid: row.uid },
          bodyType: "lading.events.v2.DeleteSubscriptionRequest",
        });
      });
      ctx.wake();
      return {};
    },

    async listDeliveries(req, call) {
      const row = await subscriptionResource.load(ctx, call, req.uid);
      return deliveries.list(row, req);
    },

    async redeliverDelivery(req, call) {
      const row = await subscriptionResource.load(ctx, call, req.uid, {
        act: "subscriptions.create",
      });
      return deliveries.redeliver(row, req.eventId);
    },

    async testSubscription(req, call) {
      const row = await subscriptionResource.load(ctx, call, req.uid, {
        act: "subscriptions.create",
      });
      return deliveries.ping(row, actorOf(call));
    },
  });
}
