import type { Kysely } from "kysely";
import { type MetadataSchema, precompiled } from "../store/metadata/index.ts";
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
  /**
   * The same as {@link principalFor}, from the identity row and role bindings the caller read
   * itself (as part of a statement of its own, to save round trips): `identity` undefined when
   * no row was found. Same checks, same errors.
   */
  principalFrom(
    claims: TokenClaims,
    identity: IdentityRow | undefined,
    bindings: readonly BindingRow[],
  ): Principal;
}

/** What the authenticator reads of an identity. */
export interface IdentityRow {
  uid: string;
  parent_uid: string;
  expire_time: string | null;
}

/** One role binding of an identity: its group and its role's capabilities (JSON; null if gone). */
export interface BindingRow {
  groupUid: string;
  capabilities: string | null;
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
  const counted = bindings.filter(({ groupUid }) => reach === "" || isWithin(groupUid, reach));
  // Each capability's groups are worked out the first time it is asked for: a request asks for
  // a handful of the many capabilities a role carries.
  const held = new Map<string, string[]>();
  const groupsHolding = (capability: string): string[] => {
    let groups = held.get(capability);
    if (groups) return groups;
    const at: string[] = [];
    for (const { groupUid, capabilities } of counted) {
      if (!capabilities.includes(capability)) continue;
      if (!scopes) at.push(groupUid);
      else {
        for (const s of scopes) {
          if (isWithin(s, groupUid)) at.push(s);
          else if (isWithin(groupUid, s)) at.push(groupUid);
        }
      }
    }
    const unique = [...new Set(at)].sort();
    groups = unique.filter((g) => !unique.some((other) => other !== g && isWithin(g, other)));
    held.set(capability, groups);
    return groups;
  };
  return {
    can: (capability, uid) => groupsHolding(capability).some((g) => isWithin(uid, g)),
    scopes: (capability) => [...groupsHolding(capability)],
  };
}

/**
 * An identity's role bindings (as {@link BindingRow}s) with each role's capabilities as a
 * scalar subquery: SQLite runs it several times faster than the equivalent join. A binding
 * whose role is gone has none, as the join would drop it.
 */
export const bindingsOf = precompiled((db, identityUid: string) =>
  db
    .selectFrom("role_bindings")
    .select((eb) => [
      "role_bindings.parent_uid as groupUid",
      eb
        .selectFrom("roles")
        .select("roles.capabilities")
        .whereRef("roles.uid", "=", "role_bindings.role_uid")
        .as("capabilities"),
    ])
    .where("role_bindings.identity_uid", "=", identityUid),
);

/** An identity's row as the authenticator checks it. */
export const identityOf = precompiled((db, uid: string) =>
  db.selectFrom("identities").select(["uid", "parent_uid", "expire_time"]).where("uid", "=", uid),
);

/**
 * Creates the authenticator of one listener. Grants are read from the database once in each
 * request (API requests beside the identity, registry requests on first use; SQLite's registry
 * requests reuse rows only while the database is unchanged), so a removed binding stops working
 * at once.
 */
export function createAuthenticator(options: AuthenticatorOptions): Authenticator {
  const { db, tokens, audience } = options;

  /** The principal of `identity`, which must exist and be unexpired, loading grants on first use. */
  function principalOf(
    claims: TokenClaims,
    identity: IdentityRow | undefined,
    bindings: () => Promise<readonly BindingRow[]>,
  ): Principal {
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
          grants = bindings().then((rows) => grantsOf(identity.parent_uid, rows, scopes));
          grants.catch(() => {
            grants = undefined;
          });
        }
        return grants;
      },
    };
  }

  async function principalFor(claims: TokenClaims, prefetch = false): Promise<Principal> {
    // API requests nearly always ask for grants: reading the bindings beside the identity makes
    // one round trip of two on PostgreSQL. They are used only once the identity checks out.
    let prefetched = prefetch ? bindingsOf(db, claims.sub) : undefined;
    prefetched?.catch(() => {
      prefetched = undefined;
    });
    const [identity] = await identityOf(db, claims.sub);
    return principalOf(claims, identity, () => prefetched ?? bindingsOf(db, claims.sub));
  }

  return {
    principalFor: (claims) => principalFor(claims),
    principalFrom: (claims, identity, bindings) =>
      principalOf(claims, identity, () => Promise.resolve(bindings)),
    async authenticate(authorization) {
      return principalFor(await tokens.verify(bearerToken(authorization), { audience }), true);
    },
  };
}

/**
 * The grants last made of each list of binding rows, with what they were made for: frozen rows
 * that several registry requests share (caching-facts-reader.ts) are parsed once; grants depend
 * on nothing else.
 */
const grantsMade = new WeakMap<
  readonly BindingRow[],
  { reach: string; scopes: string | undefined; grants: Grants }
>();

/** The grants of an identity in group `reach` holding `rows`. */
function grantsOf(
  reach: string,
  rows: readonly BindingRow[],
  scopes: string[] | undefined,
): Grants {
  const scopesKey = scopes?.join(" ");
  const made = grantsMade.get(rows);
  if (made && made.reach === reach && made.scopes === scopesKey) return made.grants;
  const grants = freshGrantsOf(reach, rows, scopes);
  if (Object.isFrozen(rows)) grantsMade.set(rows, { reach, scopes: scopesKey, grants });
  return grants;
}

function freshGrantsOf(
  reach: string,
  rows: readonly BindingRow[],
  scopes: string[] | undefined,
): Grants {
  return createGrants(
    reach,
    rows.flatMap((row) =>
      row.capabilities === null
        ? []
        : [{ groupUid: row.groupUid, capabilities: parseCapabilities(row.capabilities) }],
    ),
    scopes,
  );
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

/** Parsed capability lists by their JSON text; roles are few, so this stays small. */
const parsedCapabilities = new Map<string, string[]>();

function parseCapabilities(json: string): string[] {
  const known = parsedCapabilities.get(json);
  if (known) return known;
  let list: string[];
  try {
    const value: unknown = JSON.parse(json);
    list = Array.isArray(value) ? value.filter((c): c is string => typeof c === "string") : [];
  } catch {
    list = [];
  }
  if (parsedCapabilities.size >= 256) parsedCapabilities.clear();
  parsedCapabilities.set(json, list);
  return list;
}
