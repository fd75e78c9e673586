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
