import { createHash } from "node:crypto";
import type { TokenIssuer } from "../auth/index.ts";
import { retryAfterMs } from "./backoff.ts";
import { cloudEventHeaders, type OutboxEvent, webhookAudience } from "./cloud-event-headers.ts";

/** Lifetime of a delivery's JWT: long enough for a slow receiver, short if it leaks. */
export const webhookTokenTtlSeconds = 300;

/** How one attempt ended. */
export interface SendOutcome {
  ok: boolean;
  /** The sink's HTTP status; 0 without an answer. */
  status: number;
  /** Why it failed; "" on success. Never holds the token. */
  error: string;
  latencyMs: number;
  /** A 429 or 503 answer's Retry-After, in ms. */
  retryAfterMs?: number;
  /** 410 Gone: the sink says it will never accept this subscription's events. */
  gone: boolean;
}

/** What an attempt needs besides the event. */
export interface SendOptions {
  tokens: TokenIssuer;
  userAgent: string;
  timeoutMs: number;
  /** Aborts the attempt when the server shuts down. */
  signal: AbortSignal;
}

/** `sha256:<hex>` of the body, the `webhook.digest` claim (reference §7.3). */
export function bodyDigest(body: string | Uint8Array): string {
  return `sha256:${createHash("sha256").update(body).digest("hex")}`;
}

/**
 * POSTs `event` to `subscription.sink` in CloudEvents binary mode with a Bearer JWT for
 * `webhook:<group>`. Redirects are not followed (a sink moved elsewhere must be re-created
 * there) and the answer's body is discarded unread.
 */
export async function sendEvent(
  event: OutboxEvent,
  subscription: { uid: string; parent_uid: string; sink: string },
  options: SendOptions,
): Promise<SendOutcome> {
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  const token = await options.tokens.mint({
    subject: `webhook:${subscription.parent_uid}`,
    audience: webhookAudience,
    ttlSeconds: webhookTokenTtlSeconds,
    claims: { webhook: { digest: bodyDigest(event.data), subscription: subscription.uid } },
  });
  // One controller for the deadline and shutdown, so the error says which of them cut it.
  const abort = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    abort.abort();
  }, options.timeoutMs);
  const stop = () => abort.abort();
  options.signal.addEventListener("abort", stop, { once: true });
  if (options.signal.aborted) abort.abort();
  try {
    const response = await fetch(subscription.sink, {
      method: "POST",
      redirect: "manual",
      headers: {
        ...cloudEventHeaders(event),
        "Content-Type": "application/json",
        "User-Agent": options.userAgent,
        Authorization: `Bearer ${token}`,
      },
      body: event.data,
      signal: abort.signal,
    });
    await response.body?.cancel().catch(() => {});
    const status = response.status;
    const ok = status >= 200 && status < 300;
    return {
      ok,
      status,
      error: ok ? "" : statusError(status),
      latencyMs: latency(),
      retryAfterMs:
        status === 429 || status === 503
          ? retryAfterMs(response.headers.get("retry-after"), Date.now())
          : undefined,
      gone: status === 410,
    };
  } catch (error) {
    const message = timedOut
      ? `no answer within ${options.timeoutMs} ms`
      : options.signal.aborted
        ? "the server stopped during the attempt"
        : networkError(error);
    return { ok: false, status: 0, error: message, latencyMs: latency(), gone: false };
  } finally {
    clearTimeout(timer);
    options.signal.removeEventListener("abort", stop);
  }
}

function statusError(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  return `HTTP ${status}`;
}

function networkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  const text = cause?.code ?? cause?.message ?? (error as Error).message;
  return `request failed: ${String(text).slice(0, 200)}`;
}
