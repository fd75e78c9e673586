import { createApiClient, type Json, uidPath } from "../api-client.ts";
import { flagText, type VerbNode } from "../command-spec.ts";
import { resolveGroup } from "../names.ts";
import { field, printList, printOne } from "../output.ts";
import { nextPageHint, pageQuery, type ResourceDef } from "./crud.ts";

const collection = "/events/v2/subscriptions";

const deliveryColumns = [
  field("event id", "eventId"),
  field("type", "eventType"),
  field("state", "state"),
  field("attempts", "attempts"),
  field("status", "lastStatus"),
  field("latency ms", "latencyMs"),
  field("next retry", "nextRetryTime"),
  field("error", "lastError"),
];

const deliveries: VerbNode = {
  kind: "verb",
  name: "deliveries",
  summary: "Show a subscription's deliveries, newest event first",
  args: "UID",
  minArgs: 1,
  flags: [
    {
      name: "state",
      value: "STATE",
      help: "only this state",
      choices: ["pending", "delivered", "dead"],
    },
    { name: "page-size", value: "N", help: "results per page (server default 50, at most 200)" },
    { name: "page-token", value: "TOKEN", help: "the previous page's next page token" },
  ],
  async run(ctx, parsed) {
    const answer = await createApiClient(ctx).get(
      `${collection}/${uidPath(parsed.args[0])}/deliveries`,
      { state: flagText(parsed, "state"), ...pageQuery(parsed) },
    );
    printList(
      ctx,
      (answer.deliveries as Json[] | undefined) ?? [],
      deliveryColumns,
      answer,
      "eventId",
    );
    nextPageHint(ctx, answer);
    return 0;
  },
};

const redeliver: VerbNode = {
  kind: "verb",
  name: "redeliver",
  summary: "Send one event to the subscription's sink again",
  args: "UID EVENT_ID",
  minArgs: 2,
  maxArgs: 2,
  flags: [],
  async run(ctx, parsed) {
    const [uid, eventId] = parsed.args;
    const row = await createApiClient(ctx).post(
      `${collection}/${uidPath(uid)}/deliveries/${encodeURIComponent(eventId)}:redeliver`,
      {},
    );
    printOne(ctx, row, deliveryColumns, "eventId");
    return 0;
  },
};

const ping: VerbNode = {
  kind: "verb",
  name: "test",
  summary: "Send a dev.lading.events.ping.v1 event to this subscription only",
  args: "UID",
  minArgs: 1,
  flags: [],
  async run(ctx, parsed) {
    const row = await createApiClient(ctx).post(
      `${collection}/${uidPath(parsed.args[0])}:test`,
      {},
    );
    printOne(ctx, row, deliveryColumns, "eventId");
    return 0;
  },
};

/** `lading events subscriptions`. */
export const subscriptions: ResourceDef = {
  name: "subscriptions",
  summary: "Webhook subscriptions: sinks receiving a group's events",
  collection,
  listKey: "subscriptions",
  columns: [
    field("uid", "uid"),
    field("sink", "sink"),
    field("type prefix", "typePrefix"),
    field("created", "createTime"),
  ],
  listFilters: [
    { name: "parent", value: "GROUP", help: "only subscriptions of this group (uid or name)" },
    { name: "under", value: "GROUP", help: "only subscriptions anywhere below this group" },
  ],
  standardFilters: false,
  create: {
    flags: [
      {
        name: "parent",
        value: "GROUP",
        help: "the group (uid or name) whose events to receive",
        required: true,
      },
      { name: "sink", value: "URL", help: "the https URL events are POSTed to", required: true },
      {
        name: "type-prefix",
        value: "PREFIX",
        help: "only event types starting with this, e.g. dev.lading.registry.",
      },
    ],
    examples: [
      "lading events subscriptions create --parent $ORG --sink https://hooks.example.com/lading",
    ],
    async build(p, api) {
      return {
        parent: await resolveGroup(api, flagText(p, "parent") ?? ""),
        body: { sink: flagText(p, "sink"), typePrefix: flagText(p, "type-prefix") ?? "" },
      };
    },
  },
  extra: [deliveries, redeliver, ping],
};
