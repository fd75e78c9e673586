import { Code } from "@connectrpc/connect";
import { errorDomain, LadingError, unauthenticated } from "../errors/index.ts";
import { OutboundError } from "../outbound/index.ts";

/** Every ErrorInfo reason the auth package produces (docs/auth.md lists what each means). */
export const authReasons = {
  tokenMissing: "TOKEN_MISSING",
  tokenMalformed: "TOKEN_MALFORMED",
  tokenSignature: "TOKEN_SIGNATURE",
  tokenExpired: "TOKEN_EXPIRED",
  tokenIssuer: "TOKEN_ISSUER",
  tokenAudience: "TOKEN_AUDIENCE",
  identityNotFound: "IDENTITY_NOT_FOUND",
  upstreamIssuer: "UPSTREAM_ISSUER",
  upstreamSubject: "UPSTREAM_SUBJECT",
  upstreamAudience: "UPSTREAM_AUDIENCE",
  upstreamSignature: "UPSTREAM_SIGNATURE",
  upstreamExpired: "UPSTREAM_EXPIRED",
  upstreamNotYetValid: "UPSTREAM_NOT_YET_VALID",
  upstreamUnavailable: "UPSTREAM_UNAVAILABLE",
} as const;

/** One of {@link authReasons}. */
export type AuthReason = (typeof authReasons)[keyof typeof authReasons];

/** UNAUTHENTICATED (HTTP 401) with an auth reason. */
export function authError(reason: AuthReason, description: string): LadingError {
  return unauthenticated(reason, description);
}

/**
 * PERMISSION_DENIED (HTTP 403) reason TOKEN_AUDIENCE: a valid token meant for another listener,
 * e.g. an API token at the registry (DESIGN §1).
 */
export function audienceError(description: string): LadingError {
  return new LadingError({
    code: Code.PermissionDenied,
    message: `Permission denied: ${description}`,
    reason: authReasons.tokenAudience,
    domain: errorDomain("auth"),
  });
}

/** UNAVAILABLE (HTTP 503): an upstream issuer's discovery document or JWKS could not be read. */
export function upstreamUnavailable(description: string): LadingError {
  return new LadingError({
    code: Code.Unavailable,
    message: `Unavailable: ${description}`,
    reason: authReasons.upstreamUnavailable,
    domain: errorDomain("auth"),
  });
}

/** The token of an `Authorization: Bearer <token>` header; UNAUTHENTICATED otherwise. */
export function bearerToken(authorization: string | undefined): string {
  const header = authorization?.trim();
  if (!header) throw authError(authReasons.tokenMissing, "an Authorization header is required");
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) {
    throw authError(authReasons.tokenMalformed, "the Authorization header must be Bearer <token>");
  }
  return match[1];
}

/**
 * ": destination not allowed" when the outbound guard refused the request, else "": a refused
 * destination is told apart from one that failed, never how an internal port answered.
 */
export function refusal(error: unknown): string {
  return error instanceof OutboundError && error.reason === "not_allowed"
    ? ": destination not allowed"
    : "";
}
