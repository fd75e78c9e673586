import { parseByteSize } from "./byte-size.ts";
import { parseDurationMs } from "./duration.ts";

/**
 * How long a listener's connections may take, and how many it keeps at once. Applies to both
 * listeners and to every protocol on them (HTTP/1.1, h2c, TLS with h1 or h2); the defaults and
 * their reasons are in docs/decisions.md ("Connections").
 */
export interface ConnectionLimits {
  /**
   * Time allowed for complete request headers: from the hand-over of a new connection (after the
   * TLS handshake or the protocol sniff, each of which gets this long too) or from the previous
   * answer plus the keep-alive timeout. Default 20 s.
   */
  headersTimeoutMs: number;
  /**
   * A request body that brings no byte for this long is cut, and so is the request. A slow
   * body that keeps moving is never cut: there is no limit on a request's total time. Default
   * 30 s.
   */
  requestIdleTimeoutMs: number;
  /**
   * A request body must arrive whole within this long of its headers, or the request is cut.
   * Uploads of an authenticated caller (blobs and manifests on the registry, library
   * publishes) are exempt: they are held to `requestIdleTimeoutMs` only, so a large layer on a
   * slow link finishes. After an early answer (a refusal sent before the body was read) the
   * rest of any body is held to this from the answer. Default 30 s: every body the API reads
   * is at most 1 MiB.
   */
  requestBodyTimeoutMs: number;
  /**
   * A request body held to `requestBodyTimeoutMs` must also bring at least this many bytes a
   * second, averaged over `bodyRateWindowMs`, until it is whole; 0 turns the check off. Bytes
   * the server has not read yet count as arrived. Default 1 KiB/s (10 KiB per 10 s window).
   */
  minBodyBytesPerSecond: number;
  /**
   * The window the minimum body rate is measured over: a body is first measured once it has
   * been arriving this long, so a stall of a few seconds on a bad link does not cut it. Default
   * 10 s.
   */
  bodyRateWindowMs: number;
  /** A connection (or HTTP/2 session) with no request in flight is closed after this long. Default 15 s. */
  keepAliveTimeoutMs: number;
  /**
   * Connections one listener keeps open; a new one beyond it is closed at once while the others
   * go on. Default 10,000, well under the usual 1,048,576 descriptors and above any real load of
   * a single process.
   */
  maxConnections: number;
}

/** The defaults of {@link ConnectionLimits}. */
export const defaultConnectionLimits: Readonly<ConnectionLimits> = Object.freeze({
  headersTimeoutMs: 20_000,
  requestIdleTimeoutMs: 30_000,
  requestBodyTimeoutMs: 30_000,
  minBodyBytesPerSecond: 1024,
  bodyRateWindowMs: 10_000,
  keepAliveTimeoutMs: 15_000,
  maxConnections: 10_000,
});

/**
 * The settings as text (`20s`, `500ms`; a count for `maxConnections`; a size a second such as
 * `1KiB` or `1KiB/s` for `minBodyRate`, `0` for none); absent means the default.
 */
export interface ConnectionLimitsInput {
  headersTimeout?: string;
  requestIdleTimeout?: string;
  requestBodyTimeout?: string;
  minBodyRate?: string;
  bodyRateWindow?: string;
  keepAliveTimeout?: string;
  maxConnections?: string;
}

/** Validates the settings, naming the flag of a bad one. */
export function resolveConnectionLimits(input: ConnectionLimitsInput): ConnectionLimits {
  const duration = (text: string | undefined, flag: string, fallback: number) => {
    if (text === undefined) return fallback;
    const parsed = parseDurationMs(text);
    if (parsed.error !== undefined) throw new Error(`${flag}: ${parsed.error}`);
    return parsed.value as number;
  };
  const d = defaultConnectionLimits;
  const max = input.maxConnections ?? String(d.maxConnections);
  if (!/^[1-9]\d{0,6}$/.test(max)) {
    throw new Error(`--max-connections must be a number from 1 to 9999999, got "${max}"`);
  }
  return {
    headersTimeoutMs: duration(input.headersTimeout, "--headers-timeout", d.headersTimeoutMs),
    requestIdleTimeoutMs: duration(
      input.requestIdleTimeout,
      "--request-idle-timeout",
      d.requestIdleTimeoutMs,
    ),
    requestBodyTimeoutMs: duration(
      input.requestBodyTimeout,
      "--request-body-timeout",
      d.requestBodyTimeoutMs,
    ),
    minBodyBytesPerSecond: bodyRate(input.minBodyRate, d.minBodyBytesPerSecond),
    bodyRateWindowMs: duration(input.bodyRateWindow, "--body-rate-window", d.bodyRateWindowMs),
    keepAliveTimeoutMs: duration(
      input.keepAliveTimeout,
      "--keep-alive-timeout",
      d.keepAliveTimeoutMs,
    ),
    maxConnections: Number(max),
  };
}

/** `--min-body-rate`: `0`, or a size a second (`1KiB`, `1KiB/s`, `2048`). */
function bodyRate(text: string | undefined, fallback: number): number {
  if (text === undefined) return fallback;
  if (text.trim() === "0") return 0;
  const size = parseByteSize(text.trim().replace(/\/s$/i, ""));
  if (size.error !== undefined) {
    throw new Error(`--min-body-rate must be 0 or a size a second such as 1KiB/s, got "${text}"`);
  }
  return size.value as number;
}
