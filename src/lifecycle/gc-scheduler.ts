import { CollectionBusyError, type CollectorOptions, collectGarbage } from "./collector.ts";
import type { GcReport } from "./gc-report.ts";

/** The collector of one replica. */
export interface GcScheduler {
  /** Collects now (CollectionBusyError when any replica is collecting). */
  runNow(trigger: string, dryRun: boolean): Promise<GcReport>;
  /**
   * Starts a collection and answers once it is recorded, with its report in state `running`
   * (or its end, if it failed before): the API does not wait for a run to finish.
   * CollectionBusyError when any replica is collecting.
   */
  start(trigger: string, dryRun: boolean): Promise<GcReport>;
  /** Stops the timer and waits for a run of this replica under way. */
  close(): Promise<void>;
}

/**
 * Runs a collection every `intervalMs` (0: only on demand) on every replica; the lease lets
 * one replica at a time collect and the others skip that tick.
 */
export function startGcScheduler(options: CollectorOptions & { intervalMs: number }): GcScheduler {
  let running: Promise<GcReport> | undefined;
  // The last run until it has recorded its end, which comes after `running` is cleared.
  let last: Promise<unknown> = Promise.resolve();
  const runNow = (trigger: string, dryRun: boolean, onStart?: (report: GcReport) => void) => {
    if (running) return Promise.reject(new CollectionBusyError());
    const done = () => {
      if (running === run) running = undefined;
    };
    // This replica's turn ends with the lease, before the run's row says it ended.
    const run = collectGarbage(options, { trigger, dryRun, onStart, onRelease: done });
    running = run;
    last = run.finally(done).catch(() => undefined);
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
    runNow: (trigger, dryRun) => runNow(trigger, dryRun),
    start: (trigger, dryRun) =>
      new Promise((resolve, reject) => {
        // Whichever comes first: the recorded start, or the end of a run that never started.
        runNow(trigger, dryRun, resolve).then(resolve, reject);
      }),
    async close() {
      if (timer) clearInterval(timer);
      await last;
    },
  };
}
