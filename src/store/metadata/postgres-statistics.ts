import { type Kysely, sql } from "kysely";
import type { StatisticsOptions } from "./sqlite-statistics.ts";

/** One replica at a time analyzes: the others skip while this advisory lock is held. */
const lockKey = 0x4c61_6469; // "Ladi"

/**
 * Does autovacuum's work where it does not run: a server with autovacuum off (or slow to reach
 * a table) plans a list page over a never-analyzed table as if its uid range held a few hundred
 * rows, and sorts 100,000 instead of walking the sort index (350 ms instead of a few); and
 * without vacuum's visibility map an index-only walk reads the table for every row it skips.
 * Every `intervalMs` it reads `pg_stat_user_tables` and runs VACUUM (ANALYZE) on the tables with
 * at least `changes` rows, and a tenth of the table, modified since they were last analyzed, in
 * the database, not on Lading's event loop. Where autovacuum keeps up this finds nothing to do.
 */
export function keepPostgresStatistics(
  db: Kysely<unknown>,
  options: StatisticsOptions = {},
): { run(): Promise<string[]>; stop(): Promise<void> } {
  const intervalMs = options.intervalMs ?? 30_000;
  const threshold = options.changes ?? 1000;
  let running: Promise<string[]> | undefined;

  async function analyzeStale(): Promise<string[]> {
    return db.connection().execute(async (connection) => {
      const locked = await sql<{
        ok: boolean;
      }>`SELECT pg_try_advisory_lock(${lockKey}) AS ok`.execute(connection);
      if (!locked.rows[0]?.ok) return [];
      try {
        const stale = await sql<{ relname: string }>`
          SELECT relname FROM pg_stat_user_tables
          WHERE schemaname = current_schema()
            AND n_mod_since_analyze >= ${threshold}
            AND n_mod_since_analyze >= n_live_tup / 10`.execute(connection);
        for (const { relname } of stale.rows) {
          // VACUUM as well: it marks pages all-visible, without which an index-only walk of
          // the sort index (skip=50000) visits the table for every row it passes.
          await sql`VACUUM (ANALYZE) ${sql.table(relname)}`.execute(connection);
        }
        return stale.rows.map((r) => r.relname);
      } finally {
        await sql`SELECT pg_advisory_unlock(${lockKey})`.execute(connection);
      }
    });
  }

  const run = () => {
    running ??= analyzeStale().finally(() => {
      running = undefined;
    });
    return running;
  };
  const timer = setInterval(() => {
    run().catch(() => undefined);
  }, intervalMs);
  timer.unref();
  return {
    run,
    async stop() {
      clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
