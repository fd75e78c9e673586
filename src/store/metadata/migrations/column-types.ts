import { type Kysely, PostgresAdapter, type RawBuilder, sql } from "kysely";

/** Dialect-specific column types for portable migrations. */
export interface ColumnTypes {
  /** Text that sorts byte-wise on both dialects (uids, names, timestamps). */
  key: RawBuilder<unknown>;
  /** True on PostgreSQL. */
  postgres: boolean;
}

/** The column types for the dialect `db` talks to. */
export function columnTypes(db: Kysely<unknown>): ColumnTypes {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  return { key: postgres ? sql`text collate "C"` : sql`text`, postgres };
}
