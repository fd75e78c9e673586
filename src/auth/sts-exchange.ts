import { decodeJwt, type JWTPayload } from "jose";
import type { Kysely } from "kysely";
import type { FieldViolation } from "../errors/index.ts";
import { invalidArgument } from "../errors/index.ts";
import type { IdentitiesTable, MetadataSchema } from "../store/metadata/index.ts";
import { isUidp, isWithin } from "../uidp/index.ts";
import { authError, authReasons } from "./auth-errors.ts";
import { verifyStaticToken } from "./static-keys.ts";
import type { Actor, TokenIssuer } from "./token-issuer.ts";
import { type UpstreamVerifier, untrustedIssuer } from "./upstream-verifier.ts";

/** What the exchange needs. */
export interface ExchangeOptions {
  db: Kysely<MetadataSchema>;
  tokens: TokenIssuer;
  upstream: UpstreamVerifier;
  apiAudience: string;
  allowed: ReadonlySet<string>;
  ttlSeconds: number;
}

/** The answer of `/sts/exchange`. */
export interface ExchangeResult {
  token: string;
  expiry: string;
}

const maxAudiences = 8;
const maxScopes = 16;

/**
 * The token exchange: `presented` is an upstream OIDC token, a JWT signed by a static key of the
 * identity, or a Lading token (re-minted for the same identity with other audiences and scopes,
 * never living longer than the presented one).
 */
export function createExchange(options: ExchangeOptions) {
  const { db, tokens, upstream, apiAudience, allowed, ttlSeconds } = options;
  const issuer = tokens.issuer;
  const ladingAudiences = [issuer, `${issuer}/`, new URL(issuer).host];

  function readRequest(params: URLSearchParams) {
    const violations: FieldViolation[] = [];
    const identities = [...new Set(params.getAll("identity"))];
    if (identities.length > 1 || identities.some((i) => !isUidp(i))) {
      violations.push({ field: "identity", description: "must be one identity uid" });
    }
    const audiences = [...new Set(params.getAll("aud"))];
    if (audiences.length === 0) audiences.push(apiAudience);
    if (audiences.length > maxAudiences || audiences.some((a) => !allowed.has(a))) {
      violations.push({
        field: "aud",
        description: `must be at most ${maxAudiences} of: ${[...allowed].join(", ")}`,
      });
    }
    const scopes = [...new Set(params.getAll("scopes").flatMap((s) => s.split(/[\s,]+/)))].filter(
      (s) => s !== "",
    );
    if (scopes.length > maxScopes || scopes.some((s) => !isUidp(s))) {
      violations.push({
        field: "scopes",
        description: `must be at most ${maxScopes} group uids`,
      });
    }
    return { identity: identities[0] as string | undefined, audiences, scopes, violations };
  }

  async function checkScopes(scopes: string[], reach: string, within?: string[]): Promise<void> {
    if (scopes.length === 0) return;
    const groups = await db.selectFrom("groups").select("uid").where("uid", "in", scopes).execute();
    const known = new Set(groups.map((g) => g.uid));
    const bad = scopes.filter(
      (s) =>
        !known.has(s) ||
        (reach !== "" && !isWithin(s, reach)) ||
        (within !== undefined && !within.some((w) => isWithin(s, w))),
    );
    if (bad.length > 0) {
      const description = within
        ? "must be groups within the identity's reach and the presented token's scopes"
        : "must be groups within the identity's reach";
      throw invalidArgument("auth", [
        { field: "scopes", description: `${description}: ${bad.join(", ")}` },
      ]);
    }
  }

  async function mint(
    subject: string,
    audiences: string[],
    scopes: string[],
    ttl: number,
    act: Actor | undefined,
  ): Promise<ExchangeResult> {
    const token = await tokens.mint({
      subject,
      audience: audiences.length === 1 ? audiences[0] : audiences,
      ttlSeconds: ttl,
      act,
      claims: scopes.length > 0 ? { scopes } : undefined,
    });
    return { token, expiry: new Date((decodeJwt(token).exp ?? 0) * 1000).toISOString() };
  }

  async function remint(presented: string, request: ReturnType<typeof readRequest>) {
    const claims = await tokens.verify(presented, { audience: [...allowed] });
    if ("access" in claims) {
      throw authError(authReasons.tokenMalformed, "a registry token cannot be exchanged");
    }
    if (request.identity !== undefined && request.identity !== claims.sub) {
      throw invalidArgument("auth", [
        { field: "identity", description: "must be the presented token's subject" },
      ]);
    }
    const identity = await loadIdentity(claims.sub);
    if (!identity || expired(identity)) {
      throw authError(authReasons.identityNotFound, "the token's identity no longer exists");
    }
    const held = Array.isArray(claims.scopes) ? claims.scopes.map(String) : undefined;
    await checkScopes(request.scopes, identity.parent_uid, held);
    const scopes = request.scopes.length > 0 ? request.scopes : (held ?? []);
    const left = claims.exp - Math.floor(Date.now() / 1000);
    if (left < 1) throw authError(authReasons.tokenExpired, "the token has expired");
    return mint(claims.sub, request.audiences, scopes, Math.min(ttlSeconds, left), claims.act);
  }

  const loadIdentity = (uid: string): Promise<IdentitiesTable | undefined> =>
    db.selectFrom("identities").selectAll().where("uid", "=", uid).executeTakeFirst();

  return async function exchange(
    params: URLSearchParams,
    presented: string,
  ): Promise<ExchangeResult> {
    const request = readRequest(params);
    if (request.violations.length > 0) throw invalidArgument("auth", request.violations);
    let unverified: JWTPayload | undefined;
    try {
      unverified = decodeJwt(presented);
    } catch {
      unverified = undefined;
    }
    if (unverified?.iss === issuer) return remint(presented, request);
    if (request.identity === undefined) {
      throw invalidArgument("auth", [
        { field: "identity", description: "must be one identity uid" },
      ]);
    }
    const identity = await loadIdentity(request.identity);
    let claims: JWTPayload;
    if (identity?.issuer_keys) {
      claims = await verifyStaticToken(presented, staticOf(identity), ladingAudiences);
    } else {
      claims = await upstream.verify(presented, identity && claimMatchOf(identity));
    }
    if (!identity) throw untrustedIssuer();
    await checkScopes(request.scopes, identity.parent_uid);
    const seen = await db
      .updateTable("identities")
      .set({ last_seen_time: new Date().toISOString() })
      .where("uid", "=", identity.uid)
      .executeTakeFirst();
    if (!seen.numUpdatedRows) throw untrustedIssuer();
    return mint(identity.uid, request.audiences, request.scopes, ttlSeconds, {
      iss: String(claims.iss),
      sub: String(claims.sub),
      aud: claims.aud,
    });
  };
}

/** True when a static-key identity is past its expiration time. */
export function expired(identity: Pick<IdentitiesTable, "expire_time">): boolean {
  return identity.expire_time !== null && Date.parse(identity.expire_time) <= Date.now();
}

/** The static-key settings of an identity row. */
export function staticOf(row: IdentitiesTable) {
  return {
    issuer: row.issuer,
    subject: row.subject,
    issuerKeys: row.issuer_keys,
    audience: row.audience,
    expireTime: row.expire_time,
  };
}

/** The claim match of an identity row. */
export function claimMatchOf(row: IdentitiesTable) {
  let claims: Record<string, string> = {};
  try {
    claims = JSON.parse(row.claims || "{}");
  } catch {
    claims = { "": "unparseable claims never match" };
  }
  return {
    issuer: row.issuer,
    subject: row.subject,
    issuerPattern: row.issuer_pattern,
    subjectPattern: row.subject_pattern,
    audience: row.audience,
    claims,
  };
}
