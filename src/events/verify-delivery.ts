import { createRemoteJWKSet, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from "jose";
import { webhookAudience } from "./cloud-event-headers.ts";
import { bodyDigest } from "./send-event.ts";

/** A delivery to check: lower-case header names and the raw body. */
export interface ReceivedDelivery {
  headers: Readonly<Record<string, string | string[] | undefined>>;
  body: Uint8Array;
}

/** What the receiver expects. */
export interface VerifyDeliveryOptions {
  /** The group the subscription was created under. */
  group: string;
  /** Lading's issuer URL (its API URL). */
  issuer: string;
  /** The issuer's keys; default: found by OIDC discovery at `issuer` (see {@link issuerKeys}). */
  keys?: JWTVerifyGetKey;
}

/** Why a delivery is refused, with the status the reference handler answers (§7.3). */
export interface DeliveryRefusal {
  status: 400 | 401 | 403;
  reason: string;
}

/** The checked event. */
export interface VerifiedDelivery {
  id: string;
  type: string;
  source: string;
  subject: string;
  claims: JWTPayload;
}

/**
 * Checks a delivery exactly as reference §7.3: a CloudEvent in binary mode (else 400), a Bearer
 * token (else 401) signed by the issuer's keys with `aud` = `customer`, `sub` =
 * `webhook:<group>` and `webhook.digest` = `sha256:` + hex SHA-256 of the body (else 403).
 */
export async function verifyDelivery(
  delivery: ReceivedDelivery,
  options: VerifyDeliveryOptions,
): Promise<
  { value: VerifiedDelivery; error?: undefined } | { value?: undefined; error: DeliveryRefusal }
> {
  const header = (name: string) => {
    const value = delivery.headers[name];
    return Array.isArray(value) ? value.join(", ") : (value ?? "");
  };
  const refuse = (status: DeliveryRefusal["status"], reason: string) => ({
    error: { status, reason },
  });
  for (const name of ["ce-id", "ce-source", "ce-type"]) {
    if (header(name) === "") return refuse(400, `not a CloudEvent: no ${name} header`);
  }
  if (header("ce-specversion") !== "1.0") return refuse(400, "not a CloudEvent 1.0");
  const bearer = /^Bearer ([^\s]+)$/i.exec(header("authorization"));
  if (!bearer) return refuse(401, "no Authorization: Bearer token");
  let claims: JWTPayload;
  try {
    ({ payload: claims } = await jwtVerify(bearer[1], options.keys ?? issuerKeys(options.issuer), {
      issuer: options.issuer.replace(/\/+$/, ""),
      audience: webhookAudience,
    }));
  } catch (error) {
    return refuse(403, `the token does not verify: ${(error as Error).message}`);
  }
  const expected = `webhook:${options.group}`;
  if (claims.sub !== expected) return refuse(403, `sub is "${claims.sub}", expected "${expected}"`);
  const digest = (claims.webhook as { digest?: unknown } | undefined)?.digest;
  if (digest !== bodyDigest(delivery.body)) {
    return refuse(403, "webhook.digest does not match the SHA-256 of the body");
  }
  return {
    value: {
      id: header("ce-id"),
      type: header("ce-type"),
      source: header("ce-source"),
      subject: header("ce-subject"),
      claims,
    },
  };
}

const keySets = new Map<string, JWTVerifyGetKey>();

/**
 * The key set of `issuer`, found by OIDC discovery (`/.well-known/openid-configuration`, then
 * its `jwks_uri`) on first use and kept: jose refetches it when an unknown `kid` appears.
 */
export function issuerKeys(issuer: string): JWTVerifyGetKey {
  const base = issuer.replace(/\/+$/, "");
  const known = keySets.get(base);
  if (known) return known;
  let remote: Promise<JWTVerifyGetKey> | undefined;
  const keys: JWTVerifyGetKey = async (header, token) => {
    remote ??= discover(base).catch((error) => {
      remote = undefined;
      throw error;
    });
    return (await remote)(header, token);
  };
  keySets.set(base, keys);
  return keys;
}

async function discover(issuer: string): Promise<JWTVerifyGetKey> {
  const response = await fetch(`${issuer}/.well-known/openid-configuration`, {
    signal: AbortSignal.timeout(10_000),
  });
  if (!response.ok) throw new Error(`OIDC discovery at ${issuer} answered ${response.status}`);
  const document = (await response.json()) as { issuer?: unknown; jwks_uri?: unknown };
  if (document.issuer !== issuer) throw new Error(`OIDC discovery names issuer ${document.issuer}`);
  if (typeof document.jwks_uri !== "string") throw new Error("OIDC discovery has no jwks_uri");
  return createRemoteJWKSet(new URL(document.jwks_uri));
}
