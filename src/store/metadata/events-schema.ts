import type { Generated } from "kysely";

/** Table shapes of events (migration 0007). */

/** A sink receiving the events of its group and the groups below it. */
export interface SubscriptionsTable {
  /** <group uid>/<16 hex>. */
  uid: string;
  parent_uid: string;
  /** https URL (http only to loopback, when the server allows it). */
  sink: string;
  /** Only event types starting with this are delivered; "" means all. */
  type_prefix: string;
  create_time: string;
  update_time: string;
}

/** One CloudEvent in the outbox, written in the transaction of the change it reports. */
export interface EventsTable {
  /** Assigned by the store: the order events were recorded in. */
  seq: Generated<string | number | bigint>;
  /** Ce-Id: a UUID. */
  id: string;
  /** Ce-Type, e.g. dev.lading.iam.group.created.v1. */
  type: string;
  /** Ce-Source: the API URL of the collection, or the registry URL for push and pull. */
  source: string;
  /** Ce-Subject: the uid of the affected resource. */
  subject: string;
  /** Ce-Group: the group whose subscriptions (and those of its ancestors) receive it. */
  group_uid: string;
  /** Ce-Time, RFC 3339 UTC with milliseconds. */
  time: string;
  /** Ce-Bodytype: the protobuf message name of `body`, or "" for JSON bodies. */
  body_type: string;
  /** JSON object of further Ce-* extensions (actor, digest, mediatype, …), string values. */
  extensions: string;
  /** The HTTP body: JSON `{actor, body}`. */
  data: string;
}

/** One event to one subscription: pending until delivered or dead. */
export interface DeliveriesTable {
  subscription_uid: string;
  event_seq: string | number | bigint;
  /** pending | delivered | dead */
  state: string;
  attempts: number;
  /** When the next attempt is due (pending), or when it ended. */
  next_time: string;
  /** The replica holding the lease; "" when none. */
  lease_owner: string;
  lease_until: string | null;
  /** The sink's last HTTP status; 0 before an answer (or on a network error). */
  last_status: number;
  last_error: string;
  /** The last attempt's duration. */
  latency_ms: number;
  create_time: string;
  update_time: string;
}
