import { type Kysely, PostgresAdapter, sql } from "kysely";
import { columnTypes } from "./column-types.ts";

/** The tables whose rows are counted per parent, so a List's totalCount needs no full scan. */
export const countedTables = ["groups", "identities", "roles", "role_bindings"] as const;

/**
 * `list_counts(table_name, parent_uid, n)`: the number of rows of each table under each parent,
 * kept by triggers in the same transaction as every insert and delete (uids, and so parents,
 * never change), and backfilled from the rows that exist.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("list_counts")
    .addColumn("table_name", t.key, (c) => c.notNull())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("n", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("list_counts_pk", ["table_name", "parent_uid"])
    .execute();
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await sql`
      CREATE FUNCTION lading_count_rows() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO list_counts (table_name, parent_uid, n) VALUES (TG_TABLE_NAME, NEW.parent_uid, 1)
          ON CONFLICT (table_name, parent_uid) DO UPDATE SET n = list_counts.n + 1;
        ELSE
          UPDATE list_counts SET n = n - 1 WHERE table_name = TG_TABLE_NAME AND parent_uid = OLD.parent_uid;
        END IF;
        RETURN NULL;
      END $$`.execute(db);
  }
  for (const table of countedTables) await addRowCounters(db, table);
}

/** Keeps list_counts for `table` by triggers, and backfills it from the rows there. */
export async function addRowCounters(db: Kysely<unknown>, table: string): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  if (postgres) {
    await sql`CREATE TRIGGER ${sql.id(`${table}_count`)} AFTER INSERT OR DELETE ON ${sql.table(table)}
      FOR EACH ROW EXECUTE FUNCTION lading_count_rows()`.execute(db);
  } else {
    await sql`CREATE TRIGGER ${sql.id(`${table}_count_insert`)} AFTER INSERT ON ${sql.table(table)} BEGIN
      INSERT INTO list_counts (table_name, parent_uid, n) VALUES (${sql.lit(table)}, NEW.parent_uid, 1)
      ON CONFLICT (table_name, parent_uid) DO UPDATE SET n = n + 1;
    END`.execute(db);
    await sql`CREATE TRIGGER ${sql.id(`${table}_count_delete`)} AFTER DELETE ON ${sql.table(table)} BEGIN
      UPDATE list_counts SET n = n - 1 WHERE table_name = ${sql.lit(table)} AND parent_uid = OLD.parent_uid;
    END`.execute(db);
  }
  await sql`INSERT INTO list_counts (table_name, parent_uid, n)
    SELECT ${sql.lit(table)}, parent_uid, count(*) FROM ${sql.table(table)} GROUP BY parent_uid`.execute(
    db,
  );
}
