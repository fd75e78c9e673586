import type { Kysely, Transaction } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";

/**
 * A counter of changes to the advisories table, kept in list_counts beside the live counts.
 * Every transaction that writes advisories moves it, so a copy of advisory data tagged with
 * the counter's value (the search index) knows whether it is still current from one key read.
 */
const key = { table_name: "advisory_changes", parent_uid: "" } as const;

/** The counter's value; 0 before the first change. */
export async function readAdvisoryChanges(db: Kysely<MetadataSchema>): Promise<bigint> {
  const row = await db
    .selectFrom("list_counts")
    .select("n")
    .where("table_name", "=", key.table_name)
    .where("parent_uid", "=", key.parent_uid)
    .executeTakeFirst();
  return BigInt(row?.n ?? 0);
}

/** Moves the counter, inside the transaction that changes advisories. */
export async function countAdvisoryChange(trx: Transaction<MetadataSchema>): Promise<void> {
  await trx
    .insertInto("list_counts")
    .values({ ...key, n: 1 })
    .onConflict((oc) =>
      oc.columns(["table_name", "parent_uid"]).doUpdateSet((eb) => ({
        n: eb("list_counts.n", "+", 1),
      })),
    )
    .execute();
}
