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
