import type { Logger } from "pino";

/** Sinks tracked at once; past it the longest-failing one is forgotten (and reported anew). */
const maxTracked = 10_000;

/** What one failed attempt says. */
export interface FailedAttempt {
  subscription: string;
  eventId: string;
  status?: number;
  error?: string;
  detail?: string;
}

/** Logs delivery outcomes per subscription without a line per retry of a dead sink. */
export interface DeliveryFailureLog {
  failed(attempt: FailedAttempt): void;
  delivered(subscription: string): void;
}

interface Failing {
  sinceMs: number;
  reportedMs: number;
  attempts: number;
  sinceReport: number;
}

/**
 * The first failure of a subscription's sink is a warning; later ones are debug lines and a
 * warning summary at most every `summaryMs` (default 15 min) while it keeps failing; the first
 * success after failures says how many there were. A dead development sink retried for the
 * whole retry window (24 h by default) so logs ~100 lines, not one per attempt
 * (docs/decisions.md, "Logging a failing sink").
 */
export function deliveryFailureLog(
  log: Logger,
  summaryMs = 15 * 60_000,
  now: () => number = Date.now,
): DeliveryFailureLog {
  const failing = new Map<string, Failing>();
  const minutes = Math.round(summaryMs / 60_000);
  return {
    failed(attempt) {
      const at = now();
      const known = failing.get(attempt.subscription);
      if (!known) {
        if (failing.size >= maxTracked) failing.delete(failing.keys().next().value as string);
        failing.set(attempt.subscription, {
          sinceMs: at,
          reportedMs: at,
          attempts: 1,
          sinceReport: 0,
        });
        log.warn(
          attempt,
          `event delivery failed; retried with backoff, further failures of this subscription summarised every ${minutes} min until one succeeds`,
        );
        return;
      }
      known.attempts++;
      known.sinceReport++;
      log.debug(attempt, "event delivery failed");
      if (at - known.reportedMs < summaryMs) return;
      log.warn(
        {
          ...attempt,
          failedAttempts: known.sinceReport,
          failingSince: new Date(known.sinceMs).toISOString(),
        },
        "event deliveries still failing",
      );
      known.reportedMs = at;
      known.sinceReport = 0;
    },
    delivered(subscription) {
      const known = failing.get(subscription);
      if (!known) return;
      failing.delete(subscription);
      log.info(
        {
          subscription,
          failedAttempts: known.attempts,
          failingSince: new Date(known.sinceMs).toISOString(),
        },
        "event deliveries succeed again",
      );
    },
  };
}
