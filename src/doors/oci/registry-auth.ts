import { Code } from "@connectrpc/connect";
import type { Kysely } from "kysely";
import {
  createAuthenticator,
  type Grants,
  type Principal,
  type TokenClaims,
  type TokenIssuer,
} from "../../auth/index.ts";
import { verifyStaticToken } from "../../auth/static-keys.ts";
import { staticOf } from "../../auth/sts-exchange.ts";
import { LadingError } from "../../errors/index.ts";
import type { RegistryAction, RepoPath } from "../../registry/registry-access.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { isUidp } from "../../uidp/index.ts";
import type { AccessFacts, AccessQuery, ManifestRow } from "./access-facts.ts";
import { cachingFactsReader } from "./caching-facts-reader.ts";
import { basicCredentials, credentialToken } from "./credentials.ts";
import { OciError } from "./oci-error.ts";
import { ladingTokenCaller, scopedCaller } from "./registry-callers.ts";
import { cachingVerifier } from "./verified-tokens.ts";

/** One entry of a registry token's `access` claim (Docker token spec). */
export interface AccessEntry {
  type: "repository";
  name: string;
  actions: RegistryAction[];
}

/** Who is calling the registry and what it may do. */
export interface RegistryCaller {
  /** Identity uid, or `anonymous`. */
  subject: string;
  /** An anonymous registry token. */
  anonymous: boolean;
  /** A registry token (actions fixed by its `access` claim) rather than a Lading token. */
  scoped: boolean;
  /** The actions held on `target`. */
  actions(target: RepoPath): Set<RegistryAction>;
  /**
   * Whether `pull` on `target` reaches only the public organisation's free tier: the caller is
   * anonymous, or holds no grant of its own there and pulls only as anyone may.
   */
  freeTierOnly(target: RepoPath): boolean;
  /** Request-time grants, for a Lading token. */
  grants: Grants | undefined;
  /** The `access` claim, for a registry token. */
  access: AccessEntry[];
}

/** How the registry door authenticates. */
export interface RegistryAuthOptions {
  db: Kysely<MetadataSchema>;
  tokens: TokenIssuer;
  /** The registry token audience: the registry URL's host. */
  audience: string;
  /** The registry URL, whose `/token` is the realm of every challenge. */
  registryUrl: string;
  /**
   * The organisation anyone may pull free-tier tags from: a signed-in caller without a grant
   * there gets that much too, never less than an anonymous one.
   */
  publicOrg: string;
  /** Lifetime of registry tokens. Default 300 seconds: long enough for one push of a big image. */
  tokenTtlSeconds?: number;
  /** Told the subject of every caller identified, for the access log. */
  onCaller?(subject: string): void;
  /** The metadata store's change mark, under which authorising facts are reused (SQLite). */
  changeMark?(): string | undefined;
}

/** Registry authentication: challenges, registry tokens, callers. */
export interface RegistryAuth {
  readonly audience: string;
  readonly tokenTtlSeconds: number;
  /** `Bearer realm=…,service=…[,scope=…][,error=…,error_description=…]`. */
  challenge(scope?: string, error?: string, description?: string): string;
  /** The caller behind an Authorization header; 401 with a challenge, or 403 DENIED. */
  identify(authorization: string | undefined, scope?: string): Promise<RegistryCaller>;
  /**
   * The caller and repo when the caller holds every action of `needed` on `path`; otherwise
   * 401 (registry token: ask for a wider one) or 403 DENIED (Lading token). With `manifest`,
   * also that manifest of the repo, read in the same statement (undefined when not there): for
   * the caller to use once it has made its own checks, which come first.
   */
  authorize(
    authorization: string | undefined,
    path: string,
    needed: RegistryAction[],
    manifest?: AccessQuery["manifest"],
  ): Promise<{ caller: RegistryCaller; target: RepoPath; manifest?: ManifestRow }>;
  /**
   * Signs a registry token for `subject` with `access`; `freeTier` names the repositories of
   * `access` whose `pull` reaches only the free tier (the `free_tier` claim).
   */
  mint(subject: string, access: AccessEntry[], freeTier?: string[]): Promise<string>;
  /** Whether `target` is in the public organisation, where anyone may pull the free tier. */
  isPublic(target: RepoPath): boolean;
}

/** Creates the registry authentication of one listener. */
export function createRegistryAuth(options: RegistryAuthOptions): RegistryAuth {
  const { db, audience } = options;
  const tokens = cachingVerifier(options.tokens, audience);
  const tokenTtlSeconds = options.tokenTtlSeconds ?? 300;
  const realm = `${options.registryUrl.replace(/\/+$/, "")}/token`;
  const authenticator = createAuthenticator({ db, tokens, audience });
  const readAccessFacts = cachingFactsReader(db, options.changeMark);
  const issuer = options.tokens.issuer;
  const pullAudiences = [issuer, `${issuer}/`, new URL(issuer).host, audience];
  const isPublic = (target: RepoPath) => target.orgName === options.publicOrg && !!target.repoName;

  const challenge = (scope?: string, error?: string, description?: string) =>
    [
      `Bearer realm="${realm}"`,
      `service="${audience}"`,
      ...(scope ? [`scope="${scope}"`] : []),
      ...(error ? [`error="${error}"`] : []),
      ...(error && description ? [`error_description="${challengeText(description)}"`] : []),
    ].join(",");

  // The message is in the body and, for the error codes, in the challenge too: a HEAD answer
  // has no body, and clients (containers/image, docker) show error_description instead.
  const unauthorized = (message: string, scope?: string, error?: string) =>
    new OciError(401, "UNAUTHORIZED", message, {
      detail: scope ? { scope } : undefined,
      headers: { "www-authenticate": challenge(scope, error, message) },
    });

  async function pullTokenCaller(uid: string, jwt: string, scope?: string) {
    const identity = await db
      .selectFrom("identities")
      .selectAll()
      .where("uid", "=", uid)
      .executeTakeFirst();
    if (!identity?.issuer_keys) throw unauthorized("invalid pull token", scope, "invalid_token");
    let claims: TokenClaims;
    try {
      const verified = await verifyStaticToken(jwt, staticOf(identity), pullAudiences);
      const now = Math.floor(Date.now() / 1000);
      claims = { ...verified, iss: tokens.issuer, sub: uid, aud: audience } as TokenClaims;
      claims.exp = Math.min(Number(verified.exp), now + tokenTtlSeconds);
    } catch (error) {
      if (error instanceof LadingError) throw unauthorized(error.message, scope, "invalid_token");
      throw error;
    }
    const principal = await principalOf(() => authenticator.principalFor(claims), scope);
    return ladingCaller(claims, await principal.grants());
  }

  /** The principal `read` gives; its UNAUTHENTICATED (identity gone or expired) as 401. */
  async function principalOf(read: () => Principal | Promise<Principal>, scope?: string) {
    try {
      return await read();
    } catch (error) {
      if (error instanceof LadingError && error.code === Code.Unauthenticated) {
        throw unauthorized(error.message, scope, "invalid_token");
      }
      throw error;
    }
  }

  const ladingCaller = (claims: TokenClaims, grants: Grants) =>
    ladingTokenCaller(claims, grants, isPublic);

  /**
   * The caller a pull token (Basic credentials with an identity uid) proves, or the verified
   * claims of the token in `authorization`: 401 with a challenge, or 403 DENIED.
   */
  async function credentialsOf(
    authorization: string | undefined,
    scope?: string,
  ): Promise<{ caller: RegistryCaller } | { claims: TokenClaims }> {
    const basic = basicCredentials(authorization);
    if (basic && basic.user !== "_token" && isUidp(basic.user)) {
      return { caller: await pullTokenCaller(basic.user, basic.password, scope) };
    }
    const token = credentialToken(authorization);
    if (token === undefined) throw unauthorized("authentication required", scope);
    if (token === "") {
      throw unauthorized("Basic credentials need the user name _token or an identity uid", scope);
    }
    try {
      return { claims: await tokens.verify(token, { audience }) };
    } catch (error) {
      if (error instanceof LadingError && error.code === Code.PermissionDenied) {
        throw new OciError(403, "DENIED", error.message);
      }
      if (error instanceof LadingError) throw unauthorized(error.message, scope, "invalid_token");
      throw error;
    }
  }

  /** A registry token's `access` claim; undefined for a Lading token. */
  const accessOf = (claims: TokenClaims) => {
    const { access } = claims as { access?: unknown };
    return Array.isArray(access) ? access : undefined;
  };

  async function identify(authorization: string | undefined, scope?: string) {
    const credentials = await credentialsOf(authorization, scope);
    if ("caller" in credentials) return credentials.caller;
    const { claims } = credentials;
    const access = accessOf(claims);
    if (access && claims.sub === "anonymous") return scopedCaller(claims, access);
    // One indexed read per request, so deleting (or expiring) the identity ends its registry
    // tokens at once; the actions stay those of the `access` claim until the token expires.
    const principal = await principalOf(() => authenticator.principalFor(claims), scope);
    return access ? scopedCaller(claims, access) : ladingCaller(claims, await principal.grants());
  }

  const onCaller = options.onCaller;
  return {
    audience,
    tokenTtlSeconds,
    challenge,
    identify: onCaller
      ? async (authorization, scope) => {
          const caller = await identify(authorization, scope);
          onCaller(caller.subject);
          return caller;
        }
      : identify,

    async authorize(authorization, path, needed, manifest) {
      const scope = `repository:${path}:${needed.join(",")}`;
      const credentials = await credentialsOf(authorization, scope);
      let caller: RegistryCaller;
      let facts: AccessFacts;
      if ("caller" in credentials) {
        caller = credentials.caller;
        facts = await readAccessFacts({ identity: "", bindings: "", path, manifest });
      } else {
        // The identity, its bindings, the repo and the manifest asked for in one round trip
        // (issue 24 item 4), then checked exactly as identify checks them: nothing is cached.
        const { claims } = credentials;
        const access = accessOf(claims);
        const anonymous = !!access && claims.sub === "anonymous";
        facts = await readAccessFacts({
          identity: anonymous ? "" : claims.sub,
          bindings: access ? "" : claims.sub,
          path,
          manifest,
        });
        if (access && anonymous) caller = scopedCaller(claims, access);
        else {
          const principal = await principalOf(
            () => authenticator.principalFrom(claims, facts.identity, facts.bindings),
            scope,
          );
          caller = access
            ? scopedCaller(claims, access)
            : ladingCaller(claims, await principal.grants());
        }
      }
      onCaller?.(caller.subject);
      const { target } = facts;
      const held = caller.actions(target);
      const missing = needed.filter((a) => !held.has(a));
      if (missing.length === 0) return { caller, target, manifest: facts.manifest };
      // The same words whether the organisation exists or not, so they tell no one which.
      const message = `access to ${path} needs ${missing.join(", ")}: the organisation or repository does not exist, or the ${caller.scoped ? "token does not grant it" : "caller holds no role that allows it"}`;
      if (caller.scoped) throw unauthorized(message, scope, "insufficient_scope");
      throw new OciError(403, "DENIED", message, { detail: { scope } });
    },

    mint: (subject, access, freeTier = []) =>
      tokens.mint({
        subject,
        audience,
        ttlSeconds: tokenTtlSeconds,
        claims: freeTier.length > 0 ? { access, free_tier: freeTier } : { access },
      }),
    isPublic,
  };
}

/**
 * `text` as an RFC 6750 §3 `error_description`: printable ASCII without `"` and `\`, which
 * the quoted string cannot carry (a `"` becomes `'`, anything else outside the set `?`), at most
 * 300 characters.
 */
export function challengeText(text: string): string {
  return text
    .slice(0, 300)
    .replaceAll('"', "'")
    .replace(/[^\x20\x21\x23-\x5b\x5d-\x7e]/g, "?");
}
