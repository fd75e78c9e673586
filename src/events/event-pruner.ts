import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { pruneEvents } from "./prune-events.ts";

/** Options of {@link startEventPruner}. */
export interface EventPrunerOptions {
  db: Kysely<MetadataSchema>;
  /** Events older than this are deleted; 0 keeps them all (nothing is started). */
  retentionMs: number;
  /** Time between prunes, and before the first. Default 10 minutes. */
  intervalMs?: number;
  log: Logger;
}

/** The running pruner. */
export interface EventPruner {
  /** Stops the timer and waits for a prune under way, which stops at its next batch. */
  close(): Promise<void>;
}

/**
 * Prunes old events on a timer in every replica: deletes are idempotent, so replicas need no
 * coordination, and a replica that dies mid-prune leaves only whole batches done.
 */
export function startEventPruner(options: EventPrunerOptions): EventPruner {
  const { db, retentionMs, log } = options;
  if (retentionMs === 0) return { close: async () => {} };
  const intervalMs = options.intervalMs ?? 600_000;
  let stopped = false;
  let running: Promise<void> | undefined;
  const run = () => {
    running ??= pruneEvents(db, {
      before: new Date(Date.now() - retentionMs).toISOString(),
      stopped: () => stopped,
    })
      .then(
        (pruned) => {
          if (pruned.events + pruned.deliveries > 0) log.info(pruned, "old events pruned");
        },
        (error: unknown) => log.warn({ err: error }, "pruning old events failed; retried later"),
      )
      .finally(() => {
        running = undefined;
      });
  };
  const timer = setInterval(run, intervalMs);
  timer.unref();
  return {
    async close() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
