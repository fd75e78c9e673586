import type { Kysely } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { isWithin } from "../uidp/index.ts";
import { authError, authReasons, bearerToken } from "./auth-errors.ts";
import type { Grants, Principal } from "./principal.ts";
import type { TokenClaims, TokenIssuer } from "./token-issuer.ts";

/** What an authenticator checks tokens against. */
export interface AuthenticatorOptions {
  db: Kysely<MetadataSchema>;
  tokens: TokenIssuer;
  /** The audience this listener accepts: the API URL or the registry host. */
  audience: string | string[];
}

/** Turns an Authorization header into a Principal. */
export interface Authenticator {
  /**
   * The caller behind `Authorization: Bearer <jwt>`. Throws UNAUTHENTICATED (TOKEN_MISSING,
   * TOKEN_MALFORMED, TOKEN_SIGNATURE, TOKEN_EXPIRED, TOKEN_ISSUER, IDENTITY_NOT_FOUND) or
   * PERMISSION_DENIED (TOKEN_AUDIENCE).
   */
  authenticate(authorization: string | undefined): Promise<Principal>;
  /** The caller behind claims already verified for this audience; IDENTITY_NOT_FOUND if gone. */
  principalFor(claims: TokenClaims): Promise<Principal>;
}

/** A role binding as grants see it: the group it is on and the capabilities of its role. */
export interface GrantSource {
  groupUid: string;
  capabilities: readonly string[];
}

/**
 * Grants of an identity whose reach is `reach` (its parent group; "" reaches everywhere).
 * A binding counts only when its group lies within the reach (spec, Authentication rule 5),
 * and then grants its capabilities on that group and every descendant. A token narrowed to
 * `scopes` (group uids) keeps of each binding only its intersection with those subtrees: a
 * binding at `org` with scopes `[org/sub]` grants within `org/sub` only.
 */
export function createGrants(
  reach: string,
  bindings: readonly GrantSource[],
  scopes?: readonly string[],
): Grants {
  const byCapability = new Map<string, string[]>();
  for (const { groupUid, capabilities } of bindings) {
    if (reach !== "" && !isWithin(groupUid, reach)) continue;
    const at = scopes
      ? scopes.flatMap((s) =>
          isWithin(s, groupUid) ? [s] : isWithin(groupUid, s) ? [groupUid] : [],
        )
      : [groupUid];
    for (const capability of capabilities) {
      const groups = byCapability.get(capability) ?? [];
      groups.push(...at);
      byCapability.set(capability, groups);
    }
  }
  const held = new Map<string, string[]>();
  for (const [capability, groups] of byCapability) {
    const unique = [...new Set(groups)].sort();
    held.set(
      capability,
      unique.filter((g) => !unique.some((other) => other !== g && isWithin(g, other))),
    );
  }
  return {
    can: (capability, uid) => (held.get(capability) ?? []).some((g) => isWithin(uid, g)),
    scopes: (capability) => [...(held.get(capability) ?? [])],
  };
}

/**
 * Creates the authenticator of one listener. Grants are read from the database on first use in
 * each request, never cached across requests, so a removed binding stops working at once.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const { db, tokens, audience } = options;

  async function loadGrants(
    identityUid: string,
    reach: string,
    scopes: string[] | undefined,
  ): Promise<Grants> {
    const rows = await db
      .selectFrom("role_bindings")
      .innerJoin("roles", "roles.uid", "role_bindings.role_uid")
      .select(["role_bindings.parent_uid as groupUid", "roles.capabilities"])
      .where("role_bindings.identity_uid", "=", identityUid)
      .execute();
    return createGrants(
      reach,
      rows.map((row) => ({
        groupUid: row.groupUid,
        capabilities: parseCapabilities(row.capabilities),
      })),
      scopes,
    );
  }

  async function principalFor(claims: TokenClaims): Promise<Principal> {
    const identity = await db
      .selectFrom("identities")
      .select(["uid", "parent_uid", "expire_time"])
      .where("uid", "=", claims.sub)
      .executeTakeFirst();
    if (!identity) {
      throw authError(authReasons.identityNotFound, "the token's identity no longer exists");
    }
    if (identity.expire_time !== null && Date.parse(identity.expire_time) <= Date.now()) {
      throw authError(authReasons.identityNotFound, "the token's identity has expired");
    }
    const scopes = tokenScopes(claims);
    let grants: Promise<Grants> | undefined;
    return {
      identityUid: identity.uid,
      claims,
      grants() {
        if (!grants) {
          grants = loadGrants(identity.uid, identity.parent_uid, scopes);
          grants.catch(() => {
            grants = undefined;
          });
        }
        return grants;
      },
    };
  }

  return {
    principalFor,
    async authenticate(authorization) {
      return principalFor(await tokens.verify(bearerToken(authorization), { audience }));
    },
  };
}

/**
 * The `scopes` claim of a Lading token: undefined when absent (the identity's whole reach); a
 * malformed claim narrows to nothing.
 */
function tokenScopes(claims: TokenClaims): string[] | undefined {
  const value: unknown = claims.scopes;
  if (value === undefined) return undefined;
  return Array.isArray(value) ? value.filter((s): s is string => typeof s === "string") : [];
}

function parseCapabilities(json: string): string[] {
  try {
    const value: unknown = JSON.parse(json);
    return Array.isArray(value) ? value.filter((c): c is string => typeof c === "string") : [];
  } catch {
    return [];
  }
}
