import { randomUUID } from "node:crypto";
import {
  decodeProtectedHeader,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from "jose";
import type { Kysely } from "kysely";
import { invalidArgument } from "../errors/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { audienceError, authError, authReasons } from "./auth-errors.ts";
import { createSigningKeys, type SigningKeys } from "./signing-keys.ts";

/** How Lading issues and checks its own tokens. */
export interface TokenIssuerOptions {
  db: Kysely<MetadataSchema>;
  /** The `iss` of every token: the API URL. A trailing slash is dropped. */
  issuerUrl: string;
  /**
   * Longest lifetime `mint` accepts. Default 2592000 (30 days), the cap of
   * `lading admin token --ttl`. Every process sharing the store must use the same value: a
   * retired key stays in the JWKS this long after it stops signing.
   */
  maxTtlSeconds?: number;
  /** Signing-key rotation age. Default 30 days (see {@link createSigningKeys}). */
  rotateAfterMs?: number;
  /**
   * Grace period after `exp`. Default 0: Lading's replicas mint and check with synchronised
   * clocks and Lading tokens carry no `nbf`, so an expired token is refused at once.
   */
  clockToleranceSeconds?: number;
  /** Current time in epoch milliseconds. Default `Date.now`; tests move time. */
  clock?: () => number;
}

/** The upstream token an exchanged token was issued for (RFC 8693 `act`). */
export interface Actor {
  iss: string;
  sub: string;
  aud?: string | string[];
}

/** What to put in a new token. */
export interface MintOptions {
  /** `sub`: the identity uid. */
  subject: string;
  /** `aud`: the API URL, the registry host, …; a single value is written as a string. */
  audience: string | string[];
  /** Seconds until `exp`; 1 to `maxTtlSeconds`. */
  ttlSeconds: number;
  act?: Actor;
  /** Further claims, such as a registry token's `access`; the registered claims above win. */
  claims?: Record<string, unknown>;
}

/** The claims of a verified Lading token. */
export interface TokenClaims extends JWTPayload {
  iss: string;
  sub: string;
  aud: string | string[];
  iat: number;
  exp: number;
  jti: string;
  act?: Actor;
}

/** What a verifier expects. */
export interface VerifyOptions {
  /** The listener's audience; a token whose `aud` holds none of these is refused. */
  audience: string | string[];
}

/** Mints and verifies Lading's ES256 JWTs (DESIGN §5). */
export interface TokenIssuer {
  /** The `iss` value, without trailing slash. */
  readonly issuer: string;
  /** The longest `ttlSeconds` mint accepts. */
  readonly maxTtlSeconds: number;
  /** A compact JWT with iss, sub, aud, iat, exp, jti and optionally act. */
  mint(options: MintOptions): Promise<string>;
  /**
   * The token's claims, or a LadingError: UNAUTHENTICATED with TOKEN_MALFORMED,
   * TOKEN_SIGNATURE, TOKEN_EXPIRED or TOKEN_ISSUER; PERMISSION_DENIED with TOKEN_AUDIENCE.
   */
  verify(token: string | undefined, options: VerifyOptions): Promise<TokenClaims>;
  /** The public keys that verify Lading tokens. */
  jwks(): Promise<JSONWebKeySet>;
}

const required = ["iss", "sub", "aud", "iat", "exp", "jti"];

/** Creates the token issuer, with signing keys kept in `db`. */
export function createTokenIssuer(options: TokenIssuerOptions): TokenIssuer {
  const issuer = options.issuerUrl.replace(/\/+$/, "");
  const maxTtlSeconds = options.maxTtlSeconds ?? 30 * 86_400;
  const clock = options.clock ?? Date.now;
  const clockTolerance = options.clockToleranceSeconds ?? 0;
  const keys: SigningKeys = createSigningKeys({
    db: options.db,
    rotateAfterMs: options.rotateAfterMs,
    maxTokenLifetimeMs: maxTtlSeconds * 1000,
    clock,
  });

  return {
    issuer,
    maxTtlSeconds,

    async mint({ subject, audience, ttlSeconds, act, claims }) {
      const audiences = typeof audience === "string" ? [audience] : audience;
      const violations = [];
      if (!subject) violations.push({ field: "subject", description: "must not be empty" });
      if (audiences.length === 0 || audiences.some((a) => !a)) {
        violations.push({ field: "audience", description: "must name at least one audience" });
      }
      if (!Number.isInteger(ttlSeconds) || ttlSeconds < 1 || ttlSeconds > maxTtlSeconds) {
        violations.push({
          field: "ttlSeconds",
          description: `must be a whole number from 1 to ${maxTtlSeconds}`,
        });
      }
      if (violations.length > 0) throw invalidArgument("auth", violations);
      const { kid, privateKey } = await keys.signingKey();
      const now = Math.floor(clock() / 1000);
      const jwt = new SignJWT({ ...claims, ...(act ? { act } : {}) })
        .setProtectedHeader({ alg: "ES256", kid, typ: "JWT" })
        .setIssuer(issuer)
        .setSubject(subject)
        .setAudience(audiences.length === 1 ? audiences[0] : audiences)
        .setIssuedAt(now)
        .setExpirationTime(now + ttlSeconds)
        .setJti(randomUUID());
      return jwt.sign(privateKey);
    },

    async verify(token, { audience }) {
      if (!token) throw authError(authReasons.tokenMalformed, "no token was presented");
      let header: ReturnType<typeof decodeProtectedHeader>;
      try {
        header = decodeProtectedHeader(token);
      } catch {
        throw authError(authReasons.tokenMalformed, "the token is not a JWT");
      }
      if (token.split(".").length !== 3) {
        throw authError(authReasons.tokenMalformed, "the token is not a signed JWT");
      }
      if (header.alg !== "ES256" || typeof header.kid !== "string") {
        throw authError(authReasons.tokenSignature, "the token is not signed by a Lading key");
      }
      const key = await keys.verificationKey(header.kid);
      if (!key) {
        throw authError(authReasons.tokenSignature, "the token is signed by an unknown key");
      }
      let payload: JWTPayload;
      try {
        ({ payload } = await jwtVerify(token, key, {
          algorithms: ["ES256"],
          currentDate: new Date(clock()),
          clockTolerance,
          requiredClaims: required,
        }));
      } catch (error) {
        throw verifyError(error);
      }
      if (payload.iss !== issuer) {
        throw authError(authReasons.tokenIssuer, `the token was not issued by ${issuer}`);
      }
      const wanted = typeof audience === "string" ? [audience] : audience;
      const held = typeof payload.aud === "string" ? [payload.aud] : [payload.aud ?? []].flat();
      if (!held.some((a) => wanted.includes(a))) {
        throw audienceError(`the token's audience is not ${wanted.join(" or ")}`);
      }
      return payload as TokenClaims;
    },

    jwks: () => keys.jwks(),
  };
}

function verifyError(error: unknown): Error {
  if (error instanceof errors.JWTExpired) {
    return authError(authReasons.tokenExpired, "the token has expired");
  }
  if (error instanceof errors.JWSSignatureVerificationFailed) {
    return authError(authReasons.tokenSignature, "the token's signature does not verify");
  }
  if (error instanceof errors.JWTClaimValidationFailed && error.claim === "nbf") {
    return authError(authReasons.tokenExpired, "the token is not valid yet");
  }
  if (error instanceof errors.JOSEError) {
    return authError(authReasons.tokenMalformed, "the token's claims are malformed");
  }
  return error instanceof Error ? error : new Error(String(error));
}
