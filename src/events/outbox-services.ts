import {
  create,
  createRegistry,
  type DescMessage,
  type JsonObject,
  toJson,
} from "@bufbuild/protobuf";
import { type Kysely, sql } from "kysely";
import type { BoundService, Call } from "../rpc/index.ts";
import { type MetadataSchema, runInTransaction } from "../store/metadata/index.ts";
import { parentOf } from "../uidp/index.ts";
import { eventRulesOf, subjectOf } from "./event-rules.ts";
import { actorOf } from "./events-context.ts";
import { recordEvent } from "./record-event.ts";
import { redactBody } from "./redact.ts";

/** What the outbox wrapper needs. */
export interface OutboxOptions {
  db: Kysely<MetadataSchema>;
  /** The API URL; Ce-Source is it followed by the RPC's collection. Known once bound. */
  apiUrl: () => string;
  /**
   * Full method names (`pkg.Service/Method`) left alone: mutating methods that record their own
   * events (or, like a delivery retry, report no change of their own).
   */
  skip?: ReadonlySet<string>;
}

type AnyHandler = (request: never, call: Call) => Promise<unknown>;

/**
 * `services` with every mutating handler run inside one database transaction that also
 * records the handler's event (see eventRuleOf): the change and its event commit together or
 * not at all. The handlers keep using their shared `db`; runInTransaction makes those queries
 * join the transaction.
 */
export function withOutbox(services: BoundService[], options: OutboxOptions): BoundService[] {
  const registry = createRegistry(...services.map((s) => s.service.file));
  const toBody = (schema: DescMessage, message: unknown) =>
    toJson(schema, create(schema, message as never), { alwaysEmitImplicit: true, registry });
  return services.map((bound) => {
    const rules = eventRulesOf(bound.service, options.skip);
    if (rules.size === 0) return bound;
    const handlers = { ...(bound.handlers as Record<string, AnyHandler>) };
    for (const method of bound.service.methods) {
      const rule = rules.get(method.localName);
      const inner = handlers[method.localName];
      if (!rule || !inner) continue;
      handlers[method.localName] = (request, call) =>
        runInTransaction(options.db, async (db) => {
          const response = await inner(request, call);
          const requestJson = toBody(method.input, request) as JsonObject;
          const responseJson = toBody(method.output, response) as JsonObject;
          const bodySchema = rule.from === "request" ? method.input : method.output;
          const subject = subjectOf(requestJson, responseJson, rule);
          await recordEvent(db, {
            type: rule.type,
            source: options.apiUrl() + rule.collection,
            subject,
            groupUid: await eventGroupOf(db, subject, rule.resource),
            actor: actorOf(call),
            body: redactBody(
              bodySchema.typeName,
              rule.from === "request" ? requestJson : responseJson,
            ),
            bodyType: bodySchema.typeName,
          });
          return response;
        });
    }
    return { ...bound, handlers: handlers as unknown as BoundService["handlers"] };
  });
}

/**
 * The Ce-Group of an event about `subject`, a `resource` (the event rule's): the deepest group
 * at or above the subject (tags sit under repos, mappings under
 * identity providers, an account association or terms acceptance is its group's own uid). A
 * group reports to its parent, so that a subscription on the parent hears of its children, and
 * a root group (or a deleted resource whose groups are gone) to itself.
 */
export async function eventGroupOf(
  db: Kysely<MetadataSchema>,
  subject: string,
  resource: string,
): Promise<string> {
  const chain: string[] = [];
  for (let uid = resource === "group" ? parentOf(subject) : subject; uid !== ""; ) {
    chain.push(uid);
    uid = parentOf(uid);
  }
  if (chain.length === 0) return subject;
  const found = await db
    .selectFrom("groups")
    .select("uid")
    .where("uid", "in", chain)
    .orderBy(sql`length(uid)`, "desc")
    .limit(1)
    .executeTakeFirst();
  return found?.uid ?? chain[0];
}
