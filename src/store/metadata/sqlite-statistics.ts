import type { DatabaseSync } from "node:sqlite";

/** When statistics are refreshed. */
export interface StatisticsOptions {
  /** How often writes are looked at. Default 30 s. */
  intervalMs?: number;
  /** Rows inserted, updated or deleted since the last refresh that call for another. Default 1000. */
  changes?: number;
  /** The longest time between refreshes while anything changed. Default 1 hour. */
  maxAgeMs?: number;
}

/** A running statistics keeper. */
export interface StatisticsKeeper {
  /** Refreshes now if enough has changed; what the timer calls. Returns whether it refreshed. */
  check(now?: number): boolean;
  stop(): void;
}

/**
 * Keeps SQLite's planner statistics (`sqlite_stat1`: each table's rows, and how many rows share
 * a value of each index's leading columns) fresh, so the planner weighs one index against
 * another with the table's real size. `PRAGMA optimize` runs at open, after every bulk of
 * writes and at least hourly while anything changes (SQLite's advice for long-lived
 * connections). It re-analyzes only the tables whose size changed by a large factor, and
 * analyzes them whole. The cost, about 0.15 s per 100,000 rows on the event loop, comes once
 * per tenfold growth. Node's SQLite keeps no histograms (no STAT4), so statistics cannot say
 * how much of a table a uid range holds; the list engine tells a large range from a small one
 * by its counters (src/lists/list-engine.ts).
 */
export function keepStatistics(
  database: DatabaseSync,
  options: StatisticsOptions = {},
): StatisticsKeeper {
  const intervalMs = options.intervalMs ?? 30_000;
  const threshold = options.changes ?? 1000;
  const maxAgeMs = options.maxAgeMs ?? 3_600_000;
  const totalChanges = database.prepare("SELECT total_changes() AS n");
  const changesNow = () => (totalChanges.get() as { n: number }).n;
  const analyzed = database
    .prepare("SELECT 1 FROM sqlite_schema WHERE name = 'sqlite_stat1'")
    .get();
  // optimize leaves a database that has no statistics table alone; ANALYZE creates it.
  if (!analyzed) database.exec("ANALYZE");
  database.exec("PRAGMA optimize = 0x10002");
  let lastChanges = changesNow();
  let lastRefresh = Date.now();

  const keeper: StatisticsKeeper = {
    check(now = Date.now()) {
      if (!database.isOpen) return false;
      const changes = changesNow() - lastChanges;
      if (changes < threshold && !(changes > 0 && now - lastRefresh >= maxAgeMs)) return false;
      // 0x10000: every table, not only those this connection queried since the last run.
      database.exec("PRAGMA optimize = 0x10002");
      lastChanges = changesNow();
      lastRefresh = now;
      return true;
    },
    stop: () => clearInterval(timer),
  };
  const timer = setInterval(() => keeper.check(), intervalMs);
  timer.unref();
  return keeper;
}
