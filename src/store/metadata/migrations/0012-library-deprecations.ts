import type { Kysely } from "kysely";

/**
 * npm deprecation per version: NULL until a deprecation is set (the manifest as published
 * then decides), "" once lifted, else the message (docs/libraries-npm.md).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable("library_versions").addColumn("deprecated", "text").execute();
}
