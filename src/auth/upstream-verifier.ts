import {
  createRemoteJWKSet,
  customFetch,
  decodeJwt,
  errors,
  type JWTPayload,
  jwtVerify,
} from "jose";
import type { OutboundGuard } from "../outbound/index.ts";
import { authError, authReasons, refusal, upstreamUnavailable } from "./auth-errors.ts";
import {
  type ClaimMatch,
  isIssuerUrl,
  matchesExactOrPattern,
  unmatchedClaim,
} from "./claim-match.ts";
import { asymmetricAlgorithms } from "./jwt-algorithms.ts";
import { maxMatchedLength } from "./safe-pattern.ts";

export type { ClaimMatch } from "./claim-match.ts";

/** How upstream (third-party OIDC) tokens are checked. */
export interface UpstreamVerifierOptions {
  /** Lading's issuer URL. Upstream tokens must carry it, or its host, in `aud`. */
  issuerUrl: string;
  /** Every discovery and JWKS request goes through it. */
  outbound: OutboundGuard;
  /** Timeout of each discovery and JWKS request. Default 5000 ms. */
  fetchTimeoutMs?: number;
  /** How long an issuer's discovery document and JWKS are reused. Default 10 minutes. */
  cacheTtlMs?: number;
  /** Most issuers kept in the cache; the oldest is dropped beyond it. Default 1000. */
  maxIssuers?: number;
  /** Allowed clock difference with upstream issuers for `exp` and `nbf`. Default 5 seconds. */
  clockToleranceSeconds?: number;
}

/** Verifies third-party OIDC tokens against an identity's claim match. */
export interface UpstreamVerifier {
  /** The claims of `token` when it satisfies `match`, else a structured LadingError. */
  verify(token: string, match: ClaimMatch | undefined): Promise<JWTPayload>;
}

const algorithms = asymmetricAlgorithms;
const maxDiscoveryBytes = 256 * 1024;

interface IssuerKeys {
  jwks: ReturnType<typeof createRemoteJWKSet>;
  expiresAt: number;
}

/**
 * Creates the verifier. Order matters: the untrusted `iss` must equal the identity's issuer, or
 * pass {@link admitsIssuer}, before any request leaves Lading, so Lading only ever fetches issuers
 * an identity names or admits. The subject pattern, audience and extra claims are only looked at
 * once the signature verifies with the issuer's keys.
 */
export function createUpstreamVerifier(options: UpstreamVerifierOptions): UpstreamVerifier {
  const { outbound } = options;
  const issuer = options.issuerUrl.replace(/\/+$/, "");
  const audiences = new Set([issuer, `${issuer}/`, new URL(issuer).host]);
  const timeout = options.fetchTimeoutMs ?? 5000;
  const cacheTtlMs = options.cacheTtlMs ?? 10 * 60_000;
  const maxIssuers = options.maxIssuers ?? 1000;
  const clockTolerance = options.clockToleranceSeconds ?? 5;
  const cache = new Map<string, Promise<IssuerKeys>>();

  async function discover(iss: string): Promise<IssuerKeys> {
    const where = `${iss.replace(/\/+$/, "")}/.well-known/openid-configuration`;
    let document: { issuer?: unknown; jwks_uri?: unknown };
    try {
      const response = await outbound.request(where, {
        headers: { accept: "application/json" },
        timeoutMs: timeout,
        maxBytes: maxDiscoveryBytes,
      });
      if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
      document = JSON.parse(response.body.toString("utf8"));
    } catch (error) {
      throw upstreamUnavailable(`cannot read ${where}${refusal(error)}`);
    }
    if (document?.issuer !== iss || typeof document.jwks_uri !== "string") {
      throw upstreamUnavailable(`${where} does not describe issuer ${iss} with a jwks_uri`);
    }
    let jwksUri: URL;
    try {
      jwksUri = new URL(document.jwks_uri);
    } catch {
      throw upstreamUnavailable(`${where} has an invalid jwks_uri`);
    }
    const jwks = createRemoteJWKSet(jwksUri, {
      timeoutDuration: timeout,
      cacheMaxAge: cacheTtlMs,
      [customFetch]: outbound.fetcher({ timeoutMs: timeout, maxBytes: maxDiscoveryBytes }),
    });
    return { jwks, expiresAt: Date.now() + cacheTtlMs };
  }

  async function keysOf(iss: string): Promise<IssuerKeys> {
    const cached = cache.get(iss);
    if (cached) {
      const keys = await cached;
      if (keys.expiresAt > Date.now()) return keys;
      if (cache.get(iss) === cached) cache.delete(iss);
    }
    let pending = cache.get(iss);
    if (!pending) {
      pending = discover(iss);
      cache.set(iss, pending);
      const started = pending;
      started.catch(() => {
        if (cache.get(iss) === started) cache.delete(iss);
      });
      while (cache.size > maxIssuers) cache.delete(cache.keys().next().value as string);
    }
    return pending;
  }

  return {
    async verify(token, match) {
      let unverified: JWTPayload;
      try {
        unverified = decodeJwt(token);
      } catch {
        throw authError(authReasons.tokenMalformed, "the upstream token is not a JWT");
      }
      const iss = unverified.iss;
      if (!match || !admitsIssuer(match, iss)) throw untrustedIssuer();
      const { jwks } = await keysOf(iss);
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, jwks, {
          algorithms,
          issuer: iss,
          clockTolerance,
          requiredClaims: ["sub", "exp"],
        }));
      } catch (error) {
        throw upstreamError(error);
      }
      if (!matchesExactOrPattern(String(payload.sub), match.subject, match.subjectPattern)) {
        throw authError(
          authReasons.upstreamSubject,
          "the upstream token's subject is not the one the identity trusts",
        );
      }
      const aud = typeof payload.aud === "string" ? [payload.aud] : [payload.aud ?? []].flat();
      if (match.audience ? !aud.includes(match.audience) : !aud.some((a) => audiences.has(a))) {
        throw authError(
          authReasons.upstreamAudience,
          match.audience
            ? `the upstream token's audience must include ${match.audience}`
            : `the upstream token's audience must include ${issuer} or ${new URL(issuer).host}`,
        );
      }
      const claim = unmatchedClaim(match, payload);
      if (claim !== undefined) {
        throw authError(
          authReasons.upstreamSubject,
          `the upstream token's ${claim} claim is not the one the identity trusts`,
        );
      }
      return payload;
    },
  };
}

/**
 * Whether an unverified `iss` may be fetched for `match`. With a pattern this runs before the
 * signature is checked, since the pattern decides which URLs Lading may fetch keys from; cheap
 * checks come first (a string, at most {@link maxMatchedLength} characters, an issuer URL) and
 * only then the RE2 pattern, whose time is linear in that bounded input.
 */
export function admitsIssuer(match: ClaimMatch, iss: unknown): iss is string {
  if (typeof iss !== "string") return false;
  if (match.issuer !== "") return iss === match.issuer;
  return (
    iss.length <= maxMatchedLength &&
    isIssuerUrl(iss) &&
    matchesExactOrPattern(iss, "", match.issuerPattern)
  );
}

/**
 * UNAUTHENTICATED reason UPSTREAM_ISSUER. Also the answer for an identity that does not exist,
 * word for word, so the exchange cannot be used to probe for identities.
 */
export function untrustedIssuer(): Error {
  return authError(
    authReasons.upstreamIssuer,
    "the upstream token's issuer is not the one the identity trusts",
  );
}

function upstreamError(error: unknown): Error {
  const e = errors;
  if (error instanceof e.JWTExpired) {
    return authError(authReasons.upstreamExpired, "the upstream token has expired");
  }
  if (error instanceof e.JWTClaimValidationFailed) {
    if (error.claim === "nbf") {
      return authError(authReasons.upstreamNotYetValid, "the upstream token is not valid yet");
    }
    return authError(authReasons.tokenMalformed, `the upstream token's ${error.claim} is invalid`);
  }
  if (error instanceof e.JWSInvalid || error instanceof e.JWTInvalid) {
    return authError(authReasons.tokenMalformed, "the upstream token is malformed");
  }
  if (
    error instanceof e.JWSSignatureVerificationFailed ||
    error instanceof e.JWKSNoMatchingKey ||
    error instanceof e.JWKSMultipleMatchingKeys ||
    error instanceof e.JOSEAlgNotAllowed ||
    error instanceof e.JOSENotSupported
  ) {
    return authError(
      authReasons.upstreamSignature,
      "the upstream token's signature does not verify",
    );
  }
  return upstreamUnavailable(`the upstream issuer's keys cannot be read${refusal(error)}`);
}
