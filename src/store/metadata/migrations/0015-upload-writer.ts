import type { Kysely } from "kysely";
import { columnTypes } from "./column-types.ts";

/**
 * Upload sessions name the replica request writing to them, so two chunks for one upload sent
 * to different replicas at once cannot both append (docs/registry.md): `writer` is "" when no
 * one writes, `writer_until` when an abandoned claim (a replica that died mid-chunk) lapses.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .alterTable("uploads")
    .addColumn("writer", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema.alterTable("uploads").addColumn("writer_until", t.key).execute();
}
