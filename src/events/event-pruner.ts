import { type Kysely, sql } from "kysely";
import type { Logger } from "pino";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { pruneEvents } from "./prune-events.ts";

/** Options of {@link startEventPruner}. */
export interface EventPrunerOptions {
  db: Kysely<MetadataSchema>;
  dialect: "sqlite" | "postgres";
  /** Events older than this are deleted; 0 keeps them all (nothing is started). */
  retentionMs: number;
  /** Time between prunes, and before the first. Default 10 minutes. */
  intervalMs?: number;
  log: Logger;
}

/** The running pruner. */
export interface EventPruner {
  /** Prunes now; "skipped" when another replica is pruning (PostgreSQL). */
  run(): Promise<"pruned" | "skipped">;
  /** Stops the timer and waits for a prune under way, which stops at its next batch. */
  close(): Promise<void>;
}

/** The PostgreSQL advisory lock the pruning replica holds; the statistics keeper's is 0x4c616469. */
export const pruneLockKey = 0x4c61_6470;

/**
 * Prunes old events on a timer in every replica. On PostgreSQL one replica prunes at a time:
 * it holds a session advisory lock while it does, and a replica that finds the lock taken skips
 * that round, so replicas do not race through the same batches (the deletes are idempotent, so
 * racing would only waste work); a replica that dies mid-prune loses the lock with its
 * connection and leaves only whole batches done.
 */
export function startEventPruner(options: EventPrunerOptions): EventPruner {
  const { db, retentionMs, log } = options;
  if (retentionMs === 0) return { run: async () => "skipped", close: async () => {} };
  const intervalMs = options.intervalMs ?? 600_000;
  let stopped = false;
  let running: Promise<"pruned" | "skipped"> | undefined;
  const prune = async (): Promise<"pruned"> => {
    const pruned = await pruneEvents(db, {
      before: new Date(Date.now() - retentionMs).toISOString(),
      stopped: () => stopped,
    });
    if (pruned.events + pruned.deliveries > 0) log.info(pruned, "old events pruned");
    return "pruned";
  };
  const locked = () =>
    db.connection().execute(async (connection) => {
      const taken = await sql<{
        ok: boolean;
      }>`SELECT pg_try_advisory_lock(${pruneLockKey}) AS ok`.execute(connection);
      if (!taken.rows[0]?.ok) return "skipped" as const;
      try {
        return await prune();
      } finally {
        await sql`SELECT pg_advisory_unlock(${pruneLockKey})`.execute(connection);
      }
    });
  const run = () => {
    running ??= (options.dialect === "postgres" ? locked() : prune())
      .catch((error: unknown) => {
        log.warn({ err: error }, "pruning old events failed; retried later");
        return "skipped" as const;
      })
      .finally(() => {
        running = undefined;
      });
    return running;
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    run,
    async close() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
