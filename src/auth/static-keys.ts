import {
  createLocalJWKSet,
  decodeJwt,
  errors,
  type JSONWebKeySet,
  type JWTPayload,
  jwtVerify,
} from "jose";
import { authError, authReasons } from "./auth-errors.ts";
import { asymmetricAlgorithms } from "./jwt-algorithms.ts";
import { untrustedIssuer } from "./upstream-verifier.ts";

/** What a static-key identity stores. */
export interface StaticKeyIdentity {
  issuer: string;
  subject: string;
  /** The JWKS as JSON. */
  issuerKeys: string;
  /** When set, the only audience accepted. */
  audience: string;
  /** ISO time after which the identity accepts nothing; null never expires. */
  expireTime: string | null;
}

/** Most keys of one identity. */
export const maxStaticKeys = 10;
/** Longest `issuer_keys` text. */
export const maxIssuerKeysLength = 64 * 1024;
/** Longest lifetime of a static-key identity, and its default: 365 days. */
export const maxStaticKeysLifetimeMs = 365 * 86_400_000;

const privateMembers = ["d", "p", "q", "dp", "dq", "qi", "oth", "k"];
const curves: Record<string, string[]> = {
  EC: ["P-256", "P-384", "P-521"],
  OKP: ["Ed25519"],
};

/** Why `text` is not an acceptable JWKS of 1 to 10 public signing keys, or undefined. */
export function issuerKeysProblem(text: string): string | undefined {
  if (text.length > maxIssuerKeysLength) return `must be at most ${maxIssuerKeysLength} characters`;
  let jwks: { keys?: unknown };
  try {
    jwks = JSON.parse(text);
  } catch {
    return 'must be a JWKS: JSON {"keys": [...]}';
  }
  const keys = jwks?.keys;
  if (!Array.isArray(keys) || keys.length < 1 || keys.length > maxStaticKeys) {
    return `must be a JWKS with 1 to ${maxStaticKeys} keys`;
  }
  for (const [i, key] of keys.entries()) {
    const problem = keyProblem(key);
    if (problem) return `keys[${i}]: ${problem}`;
  }
  return undefined;
}

function keyProblem(key: Record<string, unknown>): string | undefined {
  if (typeof key !== "object" || key === null || Array.isArray(key)) return "must be an object";
  if (privateMembers.some((m) => m in key)) {
    return 'must be a public key (no private or symmetric members such as "d")';
  }
  if (key.use !== undefined && key.use !== "sig") return "use must be sig";
  if (key.alg !== undefined && !asymmetricAlgorithms.includes(String(key.alg))) {
    return `alg must be one of ${asymmetricAlgorithms.join(", ")}`;
  }
  if (key.kty === "RSA") {
    if (typeof key.n !== "string" || typeof key.e !== "string") return "an RSA key needs n and e";
    if (Buffer.from(key.n, "base64url").length < 256) return "RSA keys must be at least 2048 bits";
    return undefined;
  }
  const allowed = curves[String(key.kty)];
  if (!allowed) return "kty must be RSA, EC or OKP";
  if (!allowed.includes(String(key.crv))) return `crv must be one of ${allowed.join(", ")}`;
  if (typeof key.x !== "string" || (key.kty === "EC" && typeof key.y !== "string")) {
    return "the key's coordinates are missing";
  }
  return undefined;
}

/**
 * The claims of `token` when a key of `identity` signed it, `iss`/`sub` are the identity's, its
 * `aud` includes the identity's audience (or, without one, any of `defaultAudiences`), it has
 * not expired and neither has the identity. No network request is ever made.
 */
export async function verifyStaticToken(
  token: string,
  identity: StaticKeyIdentity,
  defaultAudiences: readonly string[],
  clockToleranceSeconds = 5,
): Promise<JWTPayload> {
  try {
    decodeJwt(token);
  } catch {
    throw authError(authReasons.tokenMalformed, "the presented token is not a JWT");
  }
  let jwks: ReturnType<typeof createLocalJWKSet>;
  try {
    jwks = createLocalJWKSet(JSON.parse(identity.issuerKeys) as JSONWebKeySet);
  } catch {
    throw untrustedIssuer();
  }
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, jwks, {
      algorithms: asymmetricAlgorithms,
      issuer: identity.issuer,
      clockTolerance: clockToleranceSeconds,
      requiredClaims: ["sub", "exp"],
    }));
  } catch (error) {
    throw staticError(error);
  }
  if (identity.expireTime !== null && Date.parse(identity.expireTime) <= Date.now()) {
    throw authError(authReasons.upstreamExpired, "the identity's static keys have expired");
  }
  if (payload.sub !== identity.subject) {
    throw authError(
      authReasons.upstreamSubject,
      "the token's subject is not the one the identity trusts",
    );
  }
  const wanted = identity.audience ? [identity.audience] : defaultAudiences;
  const aud = typeof payload.aud === "string" ? [payload.aud] : [payload.aud ?? []].flat();
  if (!aud.some((a) => wanted.includes(a))) {
    throw authError(
      authReasons.upstreamAudience,
      `the token's audience must include ${wanted.join(" or ")}`,
    );
  }
  return payload;
}

function staticError(error: unknown): Error {
  if (error instanceof errors.JWTExpired) {
    return authError(authReasons.upstreamExpired, "the presented token has expired");
  }
  if (error instanceof errors.JWTClaimValidationFailed) {
    if (error.claim === "iss") return untrustedIssuer();
    if (error.claim === "nbf") {
      return authError(authReasons.upstreamNotYetValid, "the presented token is not valid yet");
    }
    return authError(authReasons.tokenMalformed, `the presented token's ${error.claim} is invalid`);
  }
  if (error instanceof errors.JWSInvalid || error instanceof errors.JWTInvalid) {
    return authError(authReasons.tokenMalformed, "the presented token is malformed");
  }
  return authError(
    authReasons.upstreamSignature,
    "the presented token is not signed by a key of the identity",
  );
}
