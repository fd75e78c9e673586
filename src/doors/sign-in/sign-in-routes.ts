import { randomBytes } from "node:crypto";
import {
  createOidcClient,
  hashSecret,
  type OidcClientOptions,
  type OidcProvider,
  type OnSignInChanges,
  upsertSignedInUser,
} from "../../auth/index.ts";
import { type FieldViolation, invalidArgument, LadingError } from "../../errors/index.ts";
import type { OutboundGuard } from "../../outbound/index.ts";
import type { HttpResponse, RawRoute } from "../../rpc/raw-route.ts";
import type { IdentityProvidersTable } from "../../store/metadata/index.ts";
import { isUidp } from "../../uidp/index.ts";
import { readParams } from "./issuer-routes.ts";
import {
  createSignInTokenRoutes,
  type PendingSignIn,
  type SignInTokenRoutesOptions,
} from "./sign-in-tokens.ts";

/** What the sign-in endpoints need. */
export interface SignInRoutesOptions extends SignInTokenRoutesOptions {
  /** Every request to a provider goes through it. */
  outbound: OutboundGuard;
  /** How the provider is reached (timeouts, caching, clock tolerance). */
  oidc?: Omit<OidcClientOptions, "outbound">;
  /**
   * Reports what a sign-in changed (an identity created, role bindings made or removed), in
   * its transaction; the server records the events the API would. Default: nothing.
   */
  onSignInChanges?: OnSignInChanges;
}

type Pending = PendingSignIn;

const signInTtlMs = 10 * 60_000;
const codeTtlMs = 2 * 60_000;
const challenge = /^[A-Za-z0-9_-]{43}$/;
const loopbackHosts = new Set(["127.0.0.1", "[::1]", "localhost"]);

/** The console's page that finishes a browser sign-in, on the API URL (docs/console.md). */
export const consoleSignedInPath = "/signed-in";

/** True when `uri` is an http loopback redirect URI a CLI may listen on (RFC 8252 §7.3). */
export function isLoopbackRedirect(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  return (
    url.protocol === "http:" &&
    loopbackHosts.has(url.hostname) &&
    !url.username &&
    !url.password &&
    !url.hash &&
    uri.length <= 2048
  );
}

/**
 * Browser sign-in through a configured identity provider (authorization code with PKCE towards
 * the CLI on a loopback redirect, or towards the console on exactly `{apiUrl}/signed-in`),
 * refresh-token rotation and logout; see docs/sign-in.md.
 */
export function createSignInRoutes(options: SignInRoutesOptions): RawRoute[] {
  const { db } = options;
  const apiUrl = options.apiUrl.replace(/\/+$/, "");
  const callbackUrl = `${apiUrl}/auth/v2/callback`;
  // The console is served by the API listener: its one redirect URI, compared as a whole string.
  const consoleRedirect = `${apiUrl}${consoleSignedInPath}`;
  const oidc = createOidcClient({ ...options.oidc, outbound: options.outbound });
  const iso = (ms = Date.now()) => new Date(ms).toISOString();

  const providerOf = (uid: string) =>
    db.selectFrom("identity_providers").selectAll().where("uid", "=", uid).executeTakeFirst();

  return [
    ...createSignInTokenRoutes(options),
    {
      method: "GET",
      path: "/auth/v2/login",
      async handle(req, res) {
        const params = await readParams(req);
        const violations: FieldViolation[] = [];
        const providerUid = params.get("identity_provider") ?? "";
        const provider = isUidp(providerUid) ? await providerOf(providerUid) : undefined;
        if (!provider) {
          violations.push({
            field: "identity_provider",
            description: "must name an identity provider",
          });
        }
        const cliRedirect = params.get("redirect_uri") ?? "";
        if (!isLoopbackRedirect(cliRedirect) && cliRedirect !== consoleRedirect) {
          violations.push({
            field: "redirect_uri",
            description: `must be an http URL on 127.0.0.1, [::1] or localhost, or ${consoleRedirect}`,
          });
        }
        const cliState = params.get("state") ?? "";
        if (!cliState || cliState.length > 512) {
          violations.push({ field: "state", description: "must be 1 to 512 characters" });
        }
        const cliChallenge = params.get("code_challenge") ?? "";
        if (!challenge.test(cliChallenge)) {
          violations.push({
            field: "code_challenge",
            description: "must be an S256 PKCE challenge (43 base64url characters)",
          });
        }
        if (params.get("code_challenge_method") !== "S256") {
          violations.push({ field: "code_challenge_method", description: "must be S256" });
        }
        if (violations.length > 0 || !provider) throw invalidArgument("auth", violations);
        const state = randomBytes(32).toString("base64url");
        const pending: Pending = {
          nonce: randomBytes(32).toString("base64url"),
          verifier: oidcProvider(provider).pkceEnabled
            ? randomBytes(48).toString("base64url")
            : undefined,
          cliRedirect,
          cliState,
          cliChallenge,
        };
        const location = await oidc.authorizationUrl(oidcProvider(provider), {
          redirectUri: callbackUrl,
          state,
          nonce: pending.nonce,
          verifier: pending.verifier,
        });
        await db.deleteFrom("sign_ins").where("expire_time", "<", iso()).execute();
        await db
          .insertInto("sign_ins")
          .values({
            state,
            provider_uid: provider.uid,
            data: JSON.stringify(pending),
            code_hash: null,
            identity_uid: null,
            expire_time: iso(Date.now() + signInTtlMs),
          })
          .execute();
        redirect(res, location);
      },
    },
    {
      method: "GET",
      path: "/auth/v2/callback",
      async handle(req, res) {
        const params = await readParams(req);
        const state = params.get("state") ?? "";
        const code = `lsc_${randomBytes(32).toString("base64url")}`;
        const now = iso();
        const row = state
          ? await db
              .selectFrom("sign_ins")
              .selectAll()
              .where("state", "=", state)
              .executeTakeFirst()
          : undefined;
        const claimed =
          row &&
          (await db
            .updateTable("sign_ins")
            .set({ code_hash: hashSecret(code), expire_time: iso(Date.now() + codeTtlMs) })
            .where("state", "=", state)
            .where("code_hash", "is", null)
            .where("expire_time", ">", now)
            .executeTakeFirst());
        if (!row || !claimed?.numUpdatedRows) {
          throw invalidArgument("auth", [
            { field: "state", description: "is unknown, expired or already used: sign in again" },
          ]);
        }
        const pending = JSON.parse(row.data) as Pending;
        const back = new URL(pending.cliRedirect);
        const fail = async (description: string) => {
          await db.deleteFrom("sign_ins").where("state", "=", state).execute();
          back.searchParams.set("error", "access_denied");
          back.searchParams.set("error_description", description);
          back.searchParams.set("state", pending.cliState);
          redirect(res, back.toString());
        };
        const provider = await providerOf(row.provider_uid);
        const error = params.get("error");
        if (error) {
          const why = params.get("error_description");
          return fail(`the identity provider answered ${error}${why ? `: ${why}` : ""}`);
        }
        if (!provider) return fail("the identity provider no longer exists");
        const iss = params.get("iss");
        if (iss !== null && iss !== provider.issuer) {
          return fail("the authorization response comes from another issuer");
        }
        let uid: string;
        try {
          const claims = await oidc.exchangeCode(oidcProvider(provider), {
            code: params.get("code") ?? "",
            redirectUri: callbackUrl,
            nonce: pending.nonce,
            verifier: pending.verifier,
          });
          pending.act = { iss: String(claims.iss), sub: String(claims.sub), aud: claims.aud };
          ({ uid } = await upsertSignedInUser(db, provider, claims, options.onSignInChanges));
        } catch (e) {
          if (e instanceof LadingError) return fail(e.message);
          throw e;
        }
        await db
          .updateTable("sign_ins")
          .set({ identity_uid: uid, data: JSON.stringify(pending) })
          .where("state", "=", state)
          .execute();
        back.searchParams.set("code", code);
        back.searchParams.set("state", pending.cliState);
        redirect(res, back.toString());
      },
    },
  ];
}

function oidcProvider(row: IdentityProvidersTable): OidcProvider {
  let scopes: unknown;
  try {
    scopes = JSON.parse(row.additional_scopes);
  } catch {
    scopes = [];
  }
  return {
    issuer: row.issuer,
    clientId: row.client_id,
    clientSecret: row.client_secret,
    additionalScopes: Array.isArray(scopes) ? scopes.filter((s) => typeof s === "string") : [],
    pkceEnabled: Number(row.pkce_enabled) === 1,
  };
}

function redirect(res: HttpResponse, location: string): void {
  res.statusCode = 302;
  res.setHeader("location", location);
  res.setHeader("cache-control", "no-store");
  res.setHeader("content-length", 0);
  res.end();
}
