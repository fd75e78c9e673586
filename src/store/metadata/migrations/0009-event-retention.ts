import type { Kysely } from "kysely";

/**
 * Event retention deletes an old event's finished deliveries and then the event once none is
 * left: both look deliveries up by event, which the primary key (subscription first) cannot.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex("deliveries_event").on("deliveries").column("event_seq").execute();
}
