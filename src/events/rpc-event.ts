import { create, type DescService, type JsonObject, toJson } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { eventRulesOf, subjectOf } from "./event-rules.ts";
import { eventGroupOf } from "./outbox-services.ts";
import { type EventActor, recordEvent } from "./record-event.ts";
import { redactBody } from "./redact.ts";

/** A change made outside the API that an RPC of `service` would also make. */
export interface RpcEvent {
  service: DescService;
  /** The RPC's local method name, e.g. `createIdentity`. */
  method: string;
  /** The API URL: Ce-Source is it followed by the RPC's collection. */
  apiUrl: string;
  actor: EventActor;
  /**
   * The message the RPC's event carries: its response for creates and updates, its request
   * for deletes (the rule's `from`), as the RPC would answer or receive it.
   */
  body: object;
  /** Ce-Subject; default: the body's uid, as for the RPC (a request's group otherwise). */
  subject?: string;
  /** Ce-Group; default: the group withOutbox gives the subject (eventGroupOf). */
  groupUid?: string;
}

/**
 * Records, in the caller's transaction, the event the RPC `method` records when it makes the
 * same change: its type, Ce-Source, subject, Ce-Group and redacted protojson body, so a
 * receiver cannot tell a change made by `lading admin` or at sign-in from one made through
 * the API (docs/events.md).
 */
export async function recordRpcEvent(db: Kysely<MetadataSchema>, event: RpcEvent): Promise<void> {
  const rule = eventRulesOf(event.service).get(event.method);
  const method = event.service.methods.find((m) => m.localName === event.method);
  if (!rule || !method) {
    throw new Error(`${event.service.typeName}/${event.method} records no event`);
  }
  const schema = rule.from === "request" ? method.input : method.output;
  const json = toJson(schema, create(schema, event.body as never), {
    alwaysEmitImplicit: true,
  }) as JsonObject;
  const subject = event.subject ?? subjectOf(json, json, rule);
  await recordEvent(db, {
    type: rule.type,
    source: event.apiUrl + rule.collection,
    subject,
    groupUid: event.groupUid ?? (await eventGroupOf(db, subject, rule.resource)),
    actor: event.actor,
    body: redactBody(schema.typeName, json),
    bodyType: schema.typeName,
  });
}
