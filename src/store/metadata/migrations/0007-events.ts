import { type Kysely, sql } from "kysely";
import { addRowCounters } from "./0002-list-counts.ts";
import { columnTypes } from "./column-types.ts";

/**
 * Events: subscriptions (a sink under a group), the transactional outbox of CloudEvents, and
 * one delivery row per event and subscription, leased by the dispatcher.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("subscriptions")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("sink", "text", (c) => c.notNull())
    .addColumn("type_prefix", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("subscriptions_parent")
    .on("subscriptions")
    .columns(["parent_uid", "uid"])
    .execute();
  await addRowCounters(db, "subscriptions");

  await db.schema
    .createTable("events")
    // The commit order of events: deliveries to one sink follow it.
    .addColumn("seq", t.postgres ? sql`bigserial` : "integer", (c) =>
      t.postgres ? c.primaryKey() : c.primaryKey().autoIncrement(),
    )
    .addColumn("id", t.key, (c) => c.notNull().unique())
    .addColumn("type", t.key, (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("group_uid", t.key, (c) => c.notNull())
    .addColumn("time", t.key, (c) => c.notNull())
    .addColumn("body_type", "text", (c) => c.notNull())
    .addColumn("extensions", "text", (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("deliveries")
    .addColumn("subscription_uid", t.key, (c) => c.notNull())
    .addColumn("event_seq", "bigint", (c) => c.notNull())
    .addColumn("state", t.key, (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("next_time", t.key, (c) => c.notNull())
    .addColumn("lease_owner", "text", (c) => c.notNull())
    .addColumn("lease_until", t.key)
    .addColumn("last_status", "integer", (c) => c.notNull())
    .addColumn("last_error", "text", (c) => c.notNull())
    .addColumn("latency_ms", "integer", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("deliveries_pk", ["subscription_uid", "event_seq"])
    .execute();
  await db.schema
    .createIndex("deliveries_due")
    .on("deliveries")
    .columns(["state", "next_time"])
    .execute();
}
