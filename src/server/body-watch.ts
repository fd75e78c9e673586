import type { ConnectionLimits } from "../config/index.ts";
import { type HttpRequest, isAuthenticatedUpload } from "../rpc/index.ts";

/** What a body watch reads of one request, whichever HTTP version carries it. */
export interface BodyProbe {
  /** A count that grows with every body byte received (HTTP/1.1: the socket's bytes read). */
  received(): number;
  /** Whether received bytes wait for the handler to read them: the server is behind, not the client. */
  behind(): boolean;
  /** Whether the body has arrived whole, or the exchange is over. */
  done(): boolean;
  /** Ends the exchange: the body broke a limit. */
  cut(): void;
}

/** The limits a body is held to. */
export type BodyLimits = Pick<
  ConnectionLimits,
  "requestIdleTimeoutMs" | "requestBodyTimeoutMs" | "minBodyBytesPerSecond" | "bodyRateWindowMs"
>;

/** A body being watched. */
export interface BodyWatch {
  /**
   * The answer has left while the body is still arriving. From now on the rest is held to the
   * deadline and rate even if the request was an authenticated upload (its deadline counting
   * from now); another request keeps the deadline it had.
   */
  answered(): void;
}

/** One look at the body: when, how much had arrived, and whether the server was behind. */
interface Sample {
  at: number;
  bytes: number;
  behind: boolean;
}

/**
 * Holds the body of `req` to {@link BodyLimits} until it is whole, looking four times per
 * shortest period (so a limit is enforced within a quarter of it):
 *
 * - idle: no byte for `requestIdleTimeoutMs` cuts it, whoever sends it;
 * - deadline: not whole `requestBodyTimeoutMs` after its headers cuts it;
 * - rate: less than `minBodyBytesPerSecond` over the last `bodyRateWindowMs` cuts it, measured
 *   once the body has been arriving a whole window, so a short stall on a bad link is not cut.
 *
 * The deadline and the rate do not apply to an authenticated upload (a door marks it once the
 * caller is authorized, see `markAuthenticatedUpload`): a 10 GB layer must finish on a slow
 * link, and only a body that stops is cut. While the server has not read what arrived (it is
 * behind), the client is not blamed: that counts as progress, and no rate is measured over it.
 */
export function watchBody(
  req: HttpRequest,
  probe: BodyProbe,
  limits: BodyLimits,
  now: () => number = Date.now,
): BodyWatch {
  const idleMs = limits.requestIdleTimeoutMs;
  const windowMs = limits.bodyRateWindowMs;
  const minBytes = (limits.minBodyBytesPerSecond * windowMs) / 1000;
  const started = now();
  let deadline = started + limits.requestBodyTimeoutMs;
  let rateFrom = started;
  let answered = false;
  let last = probe.received();
  let quietSince = started;
  let samples: Sample[] = [{ at: started, bytes: last, behind: false }];

  const stop = () => clearInterval(timer);
  const check = () => {
    if (probe.done()) return stop();
    const at = now();
    const bytes = probe.received();
    const behind = probe.behind();
    if (bytes !== last || behind) {
      last = bytes;
      quietSince = at;
    }
    samples.push({ at, bytes, behind });
    // Keep the newest sample at least a window old, and what came after it.
    while (samples.length > 1 && samples[1].at <= at - windowMs) samples.shift();
    let cut = at - quietSince >= idleMs;
    if (answered || !isAuthenticatedUpload(req)) {
      cut ||= at >= deadline;
      const measurable = minBytes > 0 && at - rateFrom >= windowMs;
      if (measurable && !samples.some((s) => s.behind)) cut ||= bytes - samples[0].bytes < minBytes;
    }
    if (!cut) return;
    stop();
    probe.cut();
  };
  const shortest = Math.min(idleMs, limits.requestBodyTimeoutMs, windowMs);
  const timer = setInterval(check, Math.max(5, Math.floor(shortest / 4)));
  timer.unref();

  return {
    answered() {
      if (answered) return;
      answered = true;
      if (!isAuthenticatedUpload(req)) return;
      const at = now();
      deadline = at + limits.requestBodyTimeoutMs;
      rateFrom = at;
      samples = [{ at, bytes: probe.received(), behind: false }];
    },
  };
}
