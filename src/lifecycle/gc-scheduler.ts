import { CollectionBusyError, type CollectorOptions, collectGarbage } from "./collector.ts";
import type { GcReport } from "./gc-report.ts";

/** The collector of one replica. */
export interface GcScheduler {
  /** Collects now (CollectionBusyError when any replica is collecting). */
  runNow(trigger: string, dryRun: boolean): Promise<GcReport>;
  /** Stops the timer and waits for a run of this replica under way. */
  close(): Promise<void>;
}

/**
 * Runs a collection every `intervalMs` (0: only on demand) on every replica; the lease lets
 * one replica at a time collect and the others skip that tick.
 */
export function startGcScheduler(options: CollectorOptions & { intervalMs: number }): GcScheduler {
  let running: Promise<GcReport> | undefined;
  const runNow = (trigger: string, dryRun: boolean) => {
    if (running) return Promise.reject(new CollectionBusyError());
    const run = collectGarbage(options, { trigger, dryRun });
    running = run;
    run
      .finally(() => {
        if (running === run) running = undefined;
      })
      .catch(() => undefined);
    return run;
  };
  const tick = () => {
    runNow("schedule", false).catch((err: unknown) => {
      if (!(err instanceof CollectionBusyError))
        options.log.warn({ err }, "scheduled garbage collection failed");
    });
  };
  const timer = options.intervalMs > 0 ? setInterval(tick, options.intervalMs) : undefined;
  timer?.unref();
  return {
    runNow,
    async close() {
      if (timer) clearInterval(timer);
      await running?.catch(() => undefined);
    },
  };
}
