import { createHash } from "node:crypto";
import type { TokenIssuer } from "../auth/index.ts";
import { OutboundError, type OutboundGuard } from "../outbound/index.ts";
import { retryAfterMs } from "./backoff.ts";
import { cloudEventHeaders, type OutboxEvent, webhookAudience } from "./cloud-event-headers.ts";

/** Lifetime of a delivery's JWT: long enough for a slow receiver, short if it leaks. */
export const webhookTokenTtlSeconds = 300;

/** How one attempt ended. */
export interface SendOutcome {
  ok: boolean;
  /** The sink's HTTP status; 0 without an answer. */
  status: number;
  /**
   * Why it failed, for the delivery log; "" on success. Never holds the token, and never a
   * socket error of a destination the guard refused: that is "destination not allowed".
   */
  error: string;
  /** More on a refusal, for the server's own log only. */
  detail?: string;
  latencyMs: number;
  /** A 429 or 503 answer's Retry-After, in ms. */
  retryAfterMs?: number;
  /** 410 Gone: the sink says it will never accept this subscription's events. */
  gone: boolean;
}

/** What an attempt needs besides the event. */
export interface SendOptions {
  tokens: TokenIssuer;
  /** Sends the request: internal destinations only as the operator allows. */
  outbound: OutboundGuard;
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
 * POSTs `event` to `subscription.sink` through the outbound guard, in CloudEvents binary mode
 * with a Bearer JWT for `webhook:<group>`. Redirects are not followed (a sink moved elsewhere
 * must be re-created there) and the answer's body is discarded unread.
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
  try {
    const response = await options.outbound.request(subscription.sink, {
      method: "POST",
      headers: {
        ...cloudEventHeaders(event),
        "Content-Type": "application/json",
        "User-Agent": options.userAgent,
        Authorization: `Bearer ${token}`,
      },
      body: event.data,
      timeoutMs: options.timeoutMs,
      signal: options.signal,
      readBody: false,
    });
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
    const failure = error instanceof OutboundError ? error : undefined;
    const message =
      failure?.reason === "aborted"
        ? "the server stopped during the attempt"
        : (failure?.message ?? "request failed").slice(0, 200);
    return {
      ok: false,
      status: 0,
      error: message,
      detail: failure?.detail,
      latencyMs: latency(),
      gone: false,
    };
  }
}

function statusError(status: number): string {
  if (status >= 300 && status < 400) return `HTTP ${status}: redirects are not followed`;
  return `HTTP ${status}`;
}
