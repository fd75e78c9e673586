import type { Kysely } from "kysely";
import type { EventsSettings } from "../config/index.ts";
import type { ListEngine, PageTokens } from "../lists/index.ts";
import type { OutboundGuard } from "../outbound/index.ts";
import type { Call } from "../rpc/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import type { EventActor } from "./record-event.ts";

/** What the events services share. */
export interface EventsContext {
  db: Kysely<MetadataSchema>;
  lists: ListEngine;
  pageTokens: PageTokens;
  settings: Readonly<EventsSettings>;
  /** Checks sinks when subscriptions are created (and sends deliveries, in the dispatcher). */
  outbound: OutboundGuard;
  /** The API URL, known once its listener is bound: the Ce-Source of API events. */
  apiUrl: () => string;
  /** Tells the dispatcher a delivery is due now, so it need not wait for its next poll. */
  wake: () => void;
}

/** The error domain of events errors: events.lading.dev. */
export const eventsDomain = "events";

/** The actor of an event caused by `call`: its identity and the token's identifying claims. */
export function actorOf(call: Call): EventActor {
  const principal = call.principal;
  if (!principal) return { subject: "" };
  const act: Record<string, string> = {};
  for (const key of ["iss", "sub", "aud", "email"] as const) {
    const value = principal.claims[key];
    if (typeof value === "string") act[key] = value;
    else if (Array.isArray(value)) act[key] = value.join(" ");
  }
  return { subject: principal.identityUid, act };
}
