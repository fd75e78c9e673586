import type { Kysely } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";
import type { NewEvent } from "./new-event.ts";
import { recordEvents } from "./record-events.ts";

export type { EventActor, NewEvent } from "./new-event.ts";

/**
 * Records `event` and one pending delivery per subscription on its group or an ancestor
 * whose type prefix it matches. Call it with the transaction that makes the change, so an
 * event exists exactly when its change committed; the subscriptions are those existing then.
 */
export async function recordEvent(db: Kysely<MetadataSchema>, event: NewEvent): Promise<void> {
  await recordEvents(db, [event]);
}
