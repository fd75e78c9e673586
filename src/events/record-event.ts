import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { parentOf } from "../uidp/index.ts";

/** Who caused an event: the `actor` of the delivered body (reference §7.2). */
export interface EventActor {
  /** The identity uid, or "" for anonymous pulls. */
  subject: string;
  /** Claims of the token the actor used (iss, sub, aud, email), when known. */
  act?: Record<string, string>;
}

/** An event to record in the outbox. */
export interface NewEvent {
  /** e.g. dev.lading.iam.group.created.v1 */
  type: string;
  /** The API URL of the collection, or the registry URL for push and pull. */
  source: string;
  /** The uid of the affected resource. */
  subject: string;
  /** The group whose subscriptions, and those of its ancestors, receive it. */
  groupUid: string;
  actor: EventActor;
  /** The payload: the RPC response for creates and updates, the request for deletes. */
  body: unknown;
  /** The protobuf message name of `body`, when it is one. */
  bodyType?: string;
  /** Further Ce-* extensions (digest, mediatype, …). */
  extensions?: Record<string, string>;
  /** Defaults to now. */
  time?: string;
}

/**
 * Records `event` and one pending delivery per subscription on its group or an ancestor
 * whose type prefix it matches. Call it with the transaction that makes the change, so an
 * event exists exactly when its change committed; the subscriptions are those existing then.
 */
export async function recordEvent(db: Kysely<MetadataSchema>, event: NewEvent): Promise<void> {
  const time = event.time ?? new Date().toISOString();
  const inserted = await db
    .insertInto("events")
    .values({
      id: randomUUID(),
      type: event.type,
      source: event.source,
      subject: event.subject,
      group_uid: event.groupUid,
      time,
      body_type: event.bodyType ?? "",
      extensions: JSON.stringify(event.extensions ?? {}),
      data: JSON.stringify({ actor: event.actor, body: event.body }),
    })
    .returning("seq")
    .executeTakeFirstOrThrow();
  const groups: string[] = [];
  for (let g = event.groupUid; g !== ""; g = parentOf(g)) groups.push(g);
  if (groups.length === 0) return;
  const subscriptions = await db
    .selectFrom("subscriptions")
    .select(["uid", "type_prefix"])
    .where("parent_uid", "in", groups)
    .execute();
  const now = new Date().toISOString();
  const rows = subscriptions
    .filter((s) => event.type.startsWith(s.type_prefix))
    .map((s) => ({
      subscription_uid: s.uid,
      event_seq: inserted.seq,
      state: "pending",
      attempts: 0,
      next_time: now,
      lease_owner: "",
      lease_until: null,
      last_status: 0,
      last_error: "",
      latency_ms: 0,
      create_time: now,
      update_time: now,
    }));
  if (rows.length > 0) await db.insertInto("deliveries").values(rows).execute();
}
