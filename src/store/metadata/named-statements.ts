import type { PostgresPool, PostgresPoolClient } from "kysely";
import type pg from "pg";

/** SQL texts PostgreSQL keeps prepared on each connection, by text: their statement names. */
const names = new Map<string, string>();

/**
 * Asks that `sql` run as a named prepared statement on PostgreSQL: each connection parses and
 * plans it once, then only binds and executes it. For a statement with several subqueries,
 * planning costs PostgreSQL several times what running it does (issue 24 item 4). Only for
 * fixed statements whose result columns are listed: PostgreSQL refuses a prepared `select *`
 * once a migration changes the table's columns.
 */
export function nameStatement(sql: string): void {
  if (!names.has(sql)) names.set(sql, `lading_${names.size + 1}`);
}

/**
 * `pool` for Kysely's PostgreSQL dialect, sending the statements {@link nameStatement} was
 * given as named prepared statements and every other one as before.
 */
export function namingPool(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  const wrap = (client: pg.PoolClient): PostgresPoolClient => {
    let known = wrapped.get(client);
    if (!known) {
      const query = (...args: [unknown, unknown[]?]) => {
        const [text, values] = args;
        const name = typeof text === "string" ? names.get(text) : undefined;
        if (name) return client.query({ name, text: text as string, values });
        return (client.query as (...a: unknown[]) => unknown)(...args);
      };
      known = {
        query: query as unknown as PostgresPoolClient["query"],
        release: () => client.release(),
      };
      wrapped.set(client, known);
    }
    return known;
  };
  return {
    connect: async () => wrap(await pool.connect()),
    end: () => pool.end(),
  };
}
