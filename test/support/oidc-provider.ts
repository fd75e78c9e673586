import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, SignJWT } from "jose";

/** An HTTP server on 127.0.0.1, port 0. */
export async function listen(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/**
 * A real OpenID provider (the oidc-provider package) on loopback: the client-credentials grant
 * gives JWT access tokens whose `sub` is the client id and whose `aud` is the requested resource,
 * as a CI system's workload tokens are. Clients: `ci-workload`, and `short-lived` (1 s tokens).
 */
export async function startProvider() {
  const providerModule = "oidc-provider";
  const { default: Provider } = await import(providerModule);
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk: JWK = {
    ...(await exportJWK(privateKey)),
    kid: "provider-key",
    alg: "ES256",
    use: "sig",
  };
  let callback: RequestListener = () => {};
  const { server, url } = await listen((req, res) => callback(req, res));
  const client = (id: string) => ({
    client_id: id,
    client_secret: `${id}-secret-${"x".repeat(32)}`,
    grant_types: ["client_credentials"],
    redirect_uris: [],
    response_types: [],
    id_token_signed_response_alg: "ES256",
  });
  const provider = new Provider(url, {
    clients: [client("ci-workload"), client("short-lived")],
    jwks: { keys: [jwk] },
    ttl: {
      ClientCredentials: (_ctx: unknown, token: { resourceServer?: { accessTokenTTL: number } }) =>
        token.resourceServer?.accessTokenTTL ?? 600,
    },
    features: {
      devInteractions: { enabled: false },
      clientCredentials: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => "https://unused.example",
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, resource: string, c: { clientId: string }) => ({
          scope: "",
          audience: resource,
          accessTokenFormat: "jwt",
          accessTokenTTL: c.clientId === "short-lived" ? 1 : 600,
          jwt: { sign: { alg: "ES256" } },
        }),
      },
    },
  });
  callback = provider.callback();
  return {
    issuer: url,
    server,
    /** A client-credentials access token of `clientId` with `aud` = `resource`. */
    async token(clientId: string, resource: string): Promise<string> {
      const response = await fetch(`${url}/token`, {
        method: "POST",
        headers: {
          authorization: `Basic ${Buffer.from(`${clientId}:${clientId}-secret-${"x".repeat(32)}`).toString("base64")}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ grant_type: "client_credentials", resource }),
      });
      const body = (await response.json()) as { access_token: string };
      assert.equal(response.status, 200, JSON.stringify(body));
      return body.access_token;
    },
    /** A token signed with the provider's own key, for claims its flows cannot produce. */
    sign: (claims: Record<string, unknown>, expiresAt: string | number = "5m") =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid: "provider-key" })
        .setIssuedAt()
        .setExpirationTime(expiresAt)
        .sign(privateKey),
  };
}

/** What a signed-in test user's id token says besides `sub` (the login name). */
export interface BrowserAccount {
  email?: string;
  emailVerified?: boolean;
  name?: string;
  preferredUsername?: string;
  groups?: string[] | string;
}

/** The authorization-code clients of {@link startBrowserProvider}, with their secrets. */
export const browserClients = {
  /** Confidential client: client_secret_basic. */
  web: { clientId: "lading-web", clientSecret: `lading-web-secret-${"y".repeat(32)}` },
  /** Public client: token_endpoint_auth_method none, PKCE required. */
  public: { clientId: "lading-public", clientSecret: "" },
} as const;

/**
 * A real OpenID provider for browser sign-in tests: the authorization-code grant with the
 * development login and consent forms (any login name is accepted and becomes `sub`). Start it
 * after Lading, since `redirectUri` (Lading's `/auth/v2/callback`) must be registered.
 * Id tokens carry email, email_verified, name, preferred_username and groups (scopes `email`,
 * `profile`, `groups`), from {@link BrowserAccount}s the test sets with `setAccount`.
 */
export async function startBrowserProvider(options: { redirectUri: string }) {
  const providerModule = "oidc-provider";
  const { default: Provider } = await import(providerModule);
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  const jwk: JWK = {
    ...(await exportJWK(privateKey)),
    kid: "provider-key",
    alg: "ES256",
    use: "sig",
  };
  const accounts = new Map<string, BrowserAccount>();
  let tamper: ((claims: Record<string, unknown>) => Record<string, unknown>) | undefined;
  let callback: RequestListener = () => {};
  const { server, url } = await listen((req, res) => {
    if (tamper && req.method === "POST" && req.url?.startsWith("/token")) {
      rewriteIdToken(res, tamper, privateKey);
    }
    callback(req, res);
  });
  const common = {
    grant_types: ["authorization_code"],
    response_types: ["code"],
    redirect_uris: [options.redirectUri],
    id_token_signed_response_alg: "ES256",
  };
  const provider = new Provider(url, {
    clients: [
      {
        ...common,
        client_id: browserClients.web.clientId,
        client_secret: browserClients.web.clientSecret,
        token_endpoint_auth_method: "client_secret_basic",
      },
      { ...common, client_id: browserClients.public.clientId, token_endpoint_auth_method: "none" },
    ],
    jwks: { keys: [jwk] },
    scopes: ["openid", "email", "profile", "groups"],
    claims: {
      openid: ["sub"],
      email: ["email", "email_verified"],
      profile: ["name", "preferred_username"],
      groups: ["groups"],
    },
    conformIdTokenClaims: false,
    ttl: { Interaction: 600, Session: 3600, Grant: 3600, AccessToken: 600, IdToken: 600 },
    pkce: {
      required: (_ctx: unknown, client: { clientAuthMethod: string }) =>
        client.clientAuthMethod === "none",
    },
    features: { devInteractions: { enabled: true } },
    async findAccount(_ctx: unknown, sub: string) {
      return {
        accountId: sub,
        async claims() {
          const account = accounts.get(sub) ?? {};
          return {
            sub,
            email: account.email ?? `${sub}@example.com`,
            email_verified: account.emailVerified ?? true,
            name: account.name ?? sub,
            preferred_username: account.preferredUsername ?? sub,
            ...(account.groups === undefined ? {} : { groups: account.groups }),
          };
        },
      };
    },
  });
  callback = provider.callback();
  return {
    issuer: url,
    server,
    /** Sets what the id tokens of login `sub` say from now on. */
    setAccount(sub: string, account: BrowserAccount) {
      accounts.set(sub, account);
    },
    /**
     * Rewrites the claims of the id tokens the token endpoint returns (re-signed with the
     * provider's key), e.g. a wrong nonce or audience; `undefined` stops rewriting.
     */
    tamperIdTokens(
      rewrite: ((claims: Record<string, unknown>) => Record<string, unknown>) | undefined,
    ) {
      tamper = rewrite;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function rewriteIdToken(
  res: import("node:http").ServerResponse,
  rewrite: (claims: Record<string, unknown>) => Record<string, unknown>,
  key: Parameters<SignJWT["sign"]>[0],
): void {
  const end = res.end.bind(res) as (body?: unknown) => void;
  res.end = ((body?: unknown) => {
    void (async () => {
      let text = body === undefined ? "" : String(body);
      try {
        const answer = JSON.parse(text) as { id_token?: string };
        if (answer.id_token) {
          const claims = JSON.parse(
            Buffer.from(answer.id_token.split(".")[1], "base64url").toString("utf8"),
          );
          answer.id_token = await new SignJWT(rewrite(claims))
            .setProtectedHeader({ alg: "ES256", kid: "provider-key" })
            .sign(key);
          text = JSON.stringify(answer);
          res.setHeader("content-length", Buffer.byteLength(text));
        }
      } catch {}
      end(text);
    })();
    return res;
  }) as typeof res.end;
}
