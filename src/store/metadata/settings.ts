import type { Kysely } from "kysely";
import type { MetadataSchema } from "./schema.ts";

/**
 * Reads setting `key`, creating it with `make()` when absent. When several replicas start at
 * once, the first insert wins and every replica reads the same value.
 */
export async function getOrCreateSetting(
  db: Kysely<MetadataSchema>,
  key: string,
  make: () => string,
): Promise<string> {
  await db
    .insertInto("settings")
    .values({ key, value: make() })
    .onConflict((oc) => oc.column("key").doNothing())
    .execute();
  const row = await db
    .selectFrom("settings")
    .select("value")
    .where("key", "=", key)
    .executeTakeFirstOrThrow();
  return row.value;
}

/** Reads setting `key`; undefined when absent. */
export async function getSetting(
  db: Kysely<MetadataSchema>,
  key: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom("settings")
    .select("value")
    .where("key", "=", key)
    .executeTakeFirst();
  return row?.value;
}

/** Writes setting `key`. */
export async function putSetting(
  db: Kysely<MetadataSchema>,
  key: string,
  value: string,
): Promise<void> {
  await db
    .insertInto("settings")
    .values({ key, value })
    .onConflict((oc) => oc.column("key").doUpdateSet({ value }))
    .execute();
}
