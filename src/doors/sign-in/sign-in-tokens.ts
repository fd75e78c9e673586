import type { Kysely } from "kysely";
import type { Actor, TokenIssuer } from "../../auth/index.ts";
import {
  authError,
  authReasons,
  bearerToken,
  createRefreshTokens,
  hashSecret,
  pkceChallenge,
  refreshReasons,
} from "../../auth/index.ts";
import { type FieldViolation, invalidArgument, unauthenticated } from "../../errors/index.ts";
import type { RawRoute } from "../../rpc/raw-route.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { readParams, sendJson } from "./issuer-routes.ts";

/** What a pending sign-in remembers (sign_ins.data). */
export interface PendingSignIn {
  nonce: string;
  /** The PKCE verifier towards the identity provider, when it uses PKCE. */
  verifier?: string;
  cliRedirect: string;
  cliState: string;
  /** The CLI's S256 code challenge. */
  cliChallenge: string;
  /** The upstream id token's iss, sub and aud, once the provider called back. */
  act?: Actor;
}

/** What the token endpoints need. */
export interface SignInTokenRoutesOptions {
  db: Kysely<MetadataSchema>;
  tokens: TokenIssuer;
  /** The API URL: the default audience. */
  apiUrl: string;
  /** Audiences a client may ask for: the API URL and the registry audience. */
  allowedAudiences: string[];
  /** Lifetime of access tokens. Default 3600 seconds. */
  accessTtlSeconds?: number;
  /** Absolute lifetime of a refresh-token family. Default 30 days. */
  refreshLifetimeMs?: number;
}

const maxAudiences = 8;
const verifier = /^[A-Za-z0-9._~-]{43,128}$/;

/**
 * `POST /auth/v2/token` (the one-time sign-in code for tokens), `POST /sts/exchange_refresh_token`
 * (rotation) and `POST /auth/v2/logout` (revokes the refresh token's family).
 */
export function createSignInTokenRoutes(options: SignInTokenRoutesOptions): RawRoute[] {
  const { db, tokens } = options;
  const apiUrl = options.apiUrl.replace(/\/+$/, "");
  const allowed = new Set(options.allowedAudiences);
  const ttlSeconds = Math.min(options.accessTtlSeconds ?? 3600, tokens.maxTtlSeconds);
  const refresh = createRefreshTokens({ db, familyLifetimeMs: options.refreshLifetimeMs });
  const iso = (ms = Date.now()) => new Date(ms).toISOString();

  function audiencesOf(params: URLSearchParams, violations: FieldViolation[]): string[] {
    const audiences = [...new Set(params.getAll("aud"))];
    if (audiences.length === 0) audiences.push(apiUrl);
    if (audiences.length > maxAudiences || audiences.some((a) => !allowed.has(a))) {
      violations.push({
        field: "aud",
        description: `must be at most ${maxAudiences} of: ${[...allowed].join(", ")}`,
      });
    }
    return audiences;
  }

  async function mint(identityUid: string, audiences: string[], act: Actor | undefined) {
    const token = await tokens.mint({
      subject: identityUid,
      audience: audiences.length === 1 ? audiences[0] : audiences,
      ttlSeconds,
      act,
    });
    const exp = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString()).exp;
    return { token, expiry: iso(exp * 1000) };
  }

  const providerOf = (uid: string) =>
    db.selectFrom("identity_providers").selectAll().where("uid", "=", uid).executeTakeFirst();

  return [
    {
      method: "POST",
      path: "/auth/v2/token",
      async handle(req, res) {
        const params = await readParams(req);
        const violations: FieldViolation[] = [];
        if (params.get("grant_type") !== "authorization_code") {
          violations.push({ field: "grant_type", description: "must be authorization_code" });
        }
        const code = params.get("code") ?? "";
        if (!code) violations.push({ field: "code", description: "is required" });
        const codeVerifier = params.get("code_verifier") ?? "";
        if (!verifier.test(codeVerifier)) {
          violations.push({
            field: "code_verifier",
            description: "must be 43 to 128 characters of A-Z a-z 0-9 - . _ ~",
          });
        }
        const redirectUri = params.get("redirect_uri") ?? "";
        if (!redirectUri) violations.push({ field: "redirect_uri", description: "is required" });
        const audiences = audiencesOf(params, violations);
        if (violations.length > 0) throw invalidArgument("auth", violations);

        const hash = hashSecret(code);
        const row = await db
          .selectFrom("sign_ins")
          .selectAll()
          .where("code_hash", "=", hash)
          .executeTakeFirst();
        const used = row
          ? await db
              .deleteFrom("sign_ins")
              .where("state", "=", row.state)
              .where("code_hash", "=", hash)
              .executeTakeFirst()
          : undefined;
        if (!row || !used?.numDeletedRows || !row.identity_uid || row.expire_time <= iso()) {
          throw invalidArgument("auth", [
            { field: "code", description: "is unknown, expired or already used" },
          ]);
        }
        const pending = JSON.parse(row.data) as PendingSignIn;
        if (redirectUri !== pending.cliRedirect) {
          throw invalidArgument("auth", [
            { field: "redirect_uri", description: "is not the redirect_uri of the sign-in" },
          ]);
        }
        if (pkceChallenge(codeVerifier) !== pending.cliChallenge) {
          throw invalidArgument("auth", [
            {
              field: "code_verifier",
              description: "does not match the code_challenge of the sign-in",
            },
          ]);
        }
        await identityOrThrow(row.identity_uid);
        const issued = await refresh.issue(row.identity_uid);
        const minted = await mint(row.identity_uid, audiences, pending.act);
        sendJson(
          res,
          { ...minted, refreshToken: issued.token, identity: row.identity_uid },
          "no-store",
        );
      },
    },
    {
      method: "POST",
      path: "/sts/exchange_refresh_token",
      async handle(req, res) {
        const params = await readParams(req);
        const violations: FieldViolation[] = [];
        const audiences = audiencesOf(params, violations);
        if (violations.length > 0) throw invalidArgument("auth", violations);
        const issued = await refresh.rotate(bearerToken(req.headers.authorization));
        const identity = await identityOrThrow(issued.identityUid).catch(async (error) => {
          await refresh.revoke(issued.family);
          throw error;
        });
        await db
          .updateTable("identities")
          .set({ last_seen_time: iso() })
          .where("uid", "=", identity.uid)
          .execute();
        const provider = identity.provider_uid
          ? await providerOf(identity.provider_uid)
          : undefined;
        if (!provider) {
          await refresh.revoke(issued.family);
          throw unauthenticated(
            refreshReasons.invalid,
            "the identity provider of this session no longer exists; sign in again",
          );
        }
        const act: Actor = { iss: identity.issuer, sub: identity.subject, aud: provider.client_id };
        const minted = await mint(issued.identityUid, audiences, act);
        sendJson(res, { ...minted, refreshToken: issued.token }, "no-store");
      },
    },
    {
      method: "POST",
      path: "/auth/v2/logout",
      async handle(req, res) {
        await refresh.revokeFamily(bearerToken(req.headers.authorization));
        sendJson(res, {}, "no-store");
      },
    },
  ];

  async function identityOrThrow(uid: string) {
    const identity = await db
      .selectFrom("identities")
      .select(["uid", "issuer", "subject", "provider_uid"])
      .where("uid", "=", uid)
      .executeTakeFirst();
    if (!identity)
      throw authError(authReasons.identityNotFound, "the signed-in identity no longer exists");
    return identity;
  }
}
