import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { TokenIssuer } from "../auth/index.ts";
import type { EventsSettings } from "../config/index.ts";
import type { OutboundGuard } from "../outbound/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { backoffMs, maxBackoffMs } from "./backoff.ts";
import { deliveryFailureLog } from "./failure-log.ts";
import { type LeasedBatch, type LeasedDelivery, leaseDeliveries } from "./lease-deliveries.ts";
import { type SendOutcome, sendEvent } from "./send-event.ts";

/** What the dispatcher needs. */
export interface DispatcherOptions {
  db: Kysely<MetadataSchema>;
  dialect: "sqlite" | "postgres";
  tokens: TokenIssuer;
  settings: Readonly<EventsSettings>;
  /** Every delivery goes through it. */
  outbound: OutboundGuard;
  log: Logger;
  /** `Lading/<version>`. */
  userAgent: string;
  /** How often to look for due deliveries when nothing wakes it. Default 250 ms. */
  pollMs?: number;
  /** Subscriptions sent to at once, one delivery at a time each. Default 16. */
  concurrency?: number;
  /** Deliveries of one subscription leased together, sent in order. Default 20. */
  batch?: number;
  /** Told what each recorded attempt left its delivery as (the process metrics count them). */
  onAttempt?(outcome: "delivered" | "retry" | "dead"): void;
}

/** Delivers the outbox's pending deliveries to their sinks (docs/events.md "Delivery"). */
export interface Dispatcher {
  /** This replica's lease owner id. */
  readonly owner: string;
  /** A delivery may be due now: look at once instead of at the next poll. */
  wake(): void;
  /**
   * Stops leasing, waits up to `timeoutMs` for attempts in flight, aborts the rest and gives
   * their leases back, so another replica (or the next start) sends them again.
   */
  close(timeoutMs?: number): Promise<void>;
}

/** Starts delivering in the background. */
export function startDispatcher(options: DispatcherOptions): Dispatcher {
  const { db, settings, log } = options;
  const owner = randomUUID();
  const pollMs = options.pollMs ?? 250;
  const concurrency = options.concurrency ?? 16;
  const batch = options.batch ?? 20;
  // A lease covers two attempts (each ends within timeoutMs) and a margin for minting and the
  // database round trips; a batch renews what is left of it before an attempt that might
  // outlast it. So a replica that dies lets its leases go within leaseMs (35 s by default), not
  // a whole batch's worth of timeouts.
  const leaseMs = 2 * settings.timeoutMs + 15_000;
  const renewBelowMs = settings.timeoutMs + 10_000;
  const failures = deliveryFailureLog(log);
  const shutdown = new AbortController();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let woken = false;
  let resume: (() => void) | undefined;

  const wake = () => {
    woken = true;
    resume?.();
  };
  const pause = () =>
    new Promise<void>((resolve) => {
      if (woken || stopped) return resolve();
      const timer = setTimeout(done, pollMs);
      function done() {
        clearTimeout(timer);
        resume = undefined;
        resolve();
      }
      resume = done;
    });

  /** Sends a batch in order; on the first failure the rest go back, to wait behind it. */
  async function sendBatch({ subscription, deliveries }: LeasedBatch, leasedAt: number) {
    let until = leasedAt + leaseMs;
    for (let i = 0; i < deliveries.length; i++) {
      if (until - Date.now() < renewBelowMs && !shutdown.signal.aborted) {
        until = Date.now() + leaseMs;
        await db
          .updateTable("deliveries")
          .set({ lease_until: new Date(until).toISOString() })
          .where("subscription_uid", "=", subscription.uid)
          .where(
            "event_seq",
            "in",
            deliveries.slice(i).map((d) => String(d.eventSeq)),
          )
          .where("lease_owner", "=", owner)
          .execute();
      }
      const delivered = !shutdown.signal.aborted && (await attempt(subscription, deliveries[i]));
      if (delivered) continue;
      // The failed one's own lease is already cleared unless shutdown cut it; the filter on the
      // owner leaves it alone either way.
      const rest = deliveries.slice(i);
      if (rest.length > 0)
        await db
          .updateTable("deliveries")
          .set({ lease_owner: "", lease_until: null })
          .where("subscription_uid", "=", subscription.uid)
          .where(
            "event_seq",
            "in",
            rest.map((d) => String(d.eventSeq)),
          )
          .where("lease_owner", "=", owner)
          .execute();
      return;
    }
  }

  /** One attempt and its outcome; true when delivered and the batch may go on. */
  async function attempt(
    subscription: LeasedBatch["subscription"],
    delivery: LeasedDelivery,
  ): Promise<boolean> {
    const outcome = await sendEvent(delivery.event, subscription, {
      tokens: options.tokens,
      outbound: options.outbound,
      userAgent: options.userAgent,
      timeoutMs: settings.timeoutMs,
      signal: shutdown.signal,
    });
    // An attempt cut by shutdown is not counted: the lease goes back and the next owner retries.
    if (!outcome.ok && shutdown.signal.aborted) return false;
    const after = afterAttempt(delivery, outcome);
    const updated = await db
      .updateTable("deliveries")
      .set(after)
      .where("subscription_uid", "=", subscription.uid)
      .where("event_seq", "=", delivery.eventSeq)
      .where("lease_owner", "=", owner)
      .executeTakeFirst();
    // The row is gone (subscription deleted) or no longer ours (redelivered, lease taken over):
    // stop the batch rather than send the rest to a sink that may no longer want them.
    if (Number(updated.numUpdatedRows) === 0) return false;
    options.onAttempt?.(after.state === "pending" ? "retry" : after.state);
    if (outcome.ok) failures.delivered(subscription.uid);
    else {
      failures.failed({
        subscription: subscription.uid,
        eventId: delivery.event.id,
        status: outcome.status,
        error: outcome.error,
        detail: outcome.detail,
      });
    }
    return outcome.ok;
  }

  function afterAttempt(delivery: LeasedDelivery, outcome: SendOutcome) {
    const nowMs = Date.now();
    const attempts = delivery.attempts + 1;
    const expired = nowMs - Date.parse(delivery.createTime) >= settings.retryWindowMs;
    const state: "delivered" | "dead" | "pending" = outcome.ok
      ? "delivered"
      : outcome.gone || expired
        ? "dead"
        : "pending";
    const wait =
      state === "pending"
        ? Math.min(
            maxBackoffMs,
            Math.max(backoffMs(attempts, settings.backoffBaseMs), outcome.retryAfterMs ?? 0),
          )
        : 0;
    return {
      state,
      attempts,
      next_time: new Date(nowMs + wait).toISOString(),
      lease_owner: "",
      lease_until: null,
      last_status: outcome.status,
      last_error: outcome.error,
      latency_ms: outcome.latencyMs,
      update_time: new Date(nowMs).toISOString(),
    };
  }

  const loop = (async () => {
    while (!stopped) {
      woken = false;
      const room = concurrency - inFlight.size;
      let leased: LeasedBatch[] = [];
      const leasedAt = Date.now();
      if (room > 0) {
        try {
          leased = await leaseDeliveries(db, options.dialect, owner, {
            limit: room,
            batch,
            leaseMs,
          });
        } catch (err) {
          if (!stopped) log.warn({ err }, "leasing event deliveries failed");
        }
      }
      for (const work of leased) {
        const running: Promise<void> = sendBatch(work, leasedAt)
          .catch((err) => log.warn({ err }, "recording an event delivery failed"))
          .finally(() => {
            inFlight.delete(running);
            wake();
          });
        inFlight.add(running);
      }
      if (room > 0 && leased.length === room) continue;
      await pause();
    }
  })();

  return {
    owner,
    wake,
    async close(timeoutMs = 10_000) {
      stopped = true;
      resume?.();
      await loop;
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...inFlight]),
        new Promise((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
      shutdown.abort();
      await Promise.allSettled([...inFlight]);
      await db
        .updateTable("deliveries")
        .set({ lease_owner: "", lease_until: null })
        .where("lease_owner", "=", owner)
        .execute()
        .catch((err) => log.warn({ err }, "giving event delivery leases back failed"));
    },
  };
}
