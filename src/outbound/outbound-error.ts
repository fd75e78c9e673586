/**
 * Why an outbound request failed: `not_allowed` (the destination is internal and the operator
 * does not allow it, or the URL is not one Lading sends to), `timeout` (the request's deadline),
 * `aborted` (the caller's signal), `too_large` (the answer's body passed the size bound),
 * `failed` (the network or the peer).
 */
export type OutboundFailure = "not_allowed" | "timeout" | "aborted" | "too_large" | "failed";

/**
 * An outbound request that did not get an answer. The message of `not_allowed` is exactly
 * "destination not allowed" whatever the destination, so it never tells an internal port's
 * state; `detail` says why, for the server's own log.
 */
export class OutboundError extends Error {
  readonly reason: OutboundFailure;
  readonly detail: string;

  constructor(reason: OutboundFailure, message: string, detail = message) {
    super(message);
    this.name = "OutboundError";
    this.reason = reason;
    this.detail = detail;
  }
}

/** The refusal of a destination the guard does not send to. */
export function notAllowed(detail: string): OutboundError {
  return new OutboundError("not_allowed", "destination not allowed", detail);
}
