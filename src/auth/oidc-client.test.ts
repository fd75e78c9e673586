import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { after, before, describe, it } from "node:test";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { listen } from "../../test/support/oidc-provider.ts";
import { createOutboundGuard } from "../outbound/index.ts";
import { createOidcClient, type OidcProvider, pkceChallenge } from "./oidc-client.ts";

async function body(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

describe("OIDC client", () => {
  let issuer: string;
  let close: () => void;
  let claims: Record<string, unknown> = {};
  let tokenStatus = 200;
  const seen: { authorization?: string; form?: URLSearchParams } = {};
  const client = createOidcClient({
    fetchTimeoutMs: 2000,
    outbound: createOutboundGuard({ allow: { hosts: [], cidrs: ["127.0.0.1/32"] } }),
  });
  const provider = (): OidcProvider => ({
    issuer,
    clientId: "lading",
    clientSecret: "s3cret:/",
    additionalScopes: ["email", "openid"],
    pkceEnabled: false,
  });
  const exchange = { code: "c", redirectUri: "https://lading/cb", nonce: "n-1" };
  const refusal = (reason: string, pattern: RegExp) => (error: unknown) => {
    assert.equal((error as { reason?: string }).reason, reason);
    assert.match((error as Error).message, pattern);
    return true;
  };

  before(async () => {
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const jwk = { ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" };
    const { server, url } = await listen(async (req, res) => {
      res.setHeader("content-type", "application/json");
      if (req.url === "/.well-known/openid-configuration") {
        res.end(
          JSON.stringify({
            issuer: url,
            authorization_endpoint: `${url}/authorize?tenant=t`,
            token_endpoint: `${url}/token`,
            jwks_uri: `${url}/jwks`,
          }),
        );
      } else if (req.url === "/jwks") {
        res.end(JSON.stringify({ keys: [jwk] }));
      } else {
        seen.authorization = req.headers.authorization;
        seen.form = new URLSearchParams(await body(req));
        const idToken = await new SignJWT({
          iss: url,
          aud: "lading",
          sub: "u",
          nonce: "n-1",
          ...claims,
        })
          .setProtectedHeader({ alg: "ES256", kid: "k1" })
          .setIssuedAt()
          .setExpirationTime((claims.exp as number | undefined) ?? "5m")
          .sign(privateKey);
        res.statusCode = tokenStatus;
        res.end(
          JSON.stringify(tokenStatus === 200 ? { id_token: idToken } : { error: "invalid_grant" }),
        );
      }
    });
    issuer = url;
    close = () => server.close();
  });
  after(() => close?.());

  it("computes the RFC 7636 S256 challenge", () => {
    assert.equal(
      pkceChallenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
      "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    );
  });

  it("builds the authorization URL from discovery, with PKCE when given a verifier", async () => {
    const url = new URL(
      await client.authorizationUrl(provider(), {
        redirectUri: "https://lading/cb",
        state: "st",
        nonce: "no",
        verifier: "v".repeat(43),
      }),
    );
    assert.equal(`${url.origin}${url.pathname}`, `${issuer}/authorize`);
    const p = Object.fromEntries(url.searchParams);
    assert.deepEqual(p, {
      tenant: "t",
      response_type: "code",
      client_id: "lading",
      redirect_uri: "https://lading/cb",
      scope: "openid email",
      state: "st",
      nonce: "no",
      code_challenge: pkceChallenge("v".repeat(43)),
      code_challenge_method: "S256",
    });
  });

  it("redeems a code with client_secret_basic, or with client_id and the verifier for a public client", async () => {
    claims = {};
    const verified = await client.exchangeCode(provider(), exchange);
    assert.equal(verified.sub, "u");
    assert.equal(
      seen.authorization,
      `Basic ${Buffer.from("lading:s3cret%3A%2F").toString("base64")}`,
    );
    assert.equal(seen.form?.get("client_id"), null);
    await client.exchangeCode(
      { ...provider(), clientSecret: "" },
      { ...exchange, verifier: "w".repeat(43) },
    );
    assert.equal(seen.authorization, undefined);
    assert.equal(seen.form?.get("client_id"), "lading");
    assert.equal(seen.form?.get("code_verifier"), "w".repeat(43));
    assert.equal(seen.form?.get("grant_type"), "authorization_code");
  });

  it("refuses id tokens with the wrong nonce, audience, issuer or an expiry in the past", async () => {
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ nonce: "other" }, "TOKEN_MALFORMED", /nonce/],
      [{ aud: "someone-else" }, "UPSTREAM_AUDIENCE", /audience/],
      [{ aud: ["lading", "other"], azp: "other" }, "UPSTREAM_AUDIENCE", /authorized party/],
      [{ iss: "https://evil.example" }, "UPSTREAM_ISSUER", /issued/],
      [{ exp: Math.floor(Date.now() / 1000) - 3600 }, "UPSTREAM_EXPIRED", /expired/],
    ];
    for (const [bad, reason, pattern] of cases) {
      claims = bad;
      await assert.rejects(client.exchangeCode(provider(), exchange), refusal(reason, pattern));
    }
    claims = {};
  });

  it("reports a refused code and an unreachable provider", async () => {
    tokenStatus = 400;
    await assert.rejects(
      client.exchangeCode(provider(), exchange),
      refusal("UPSTREAM_SIGNATURE", /refused the code \(HTTP 400: invalid_grant\)/),
    );
    tokenStatus = 200;
    await assert.rejects(
      client.authorizationUrl(
        { ...provider(), issuer: "http://127.0.0.1:9" },
        {
          redirectUri: "x",
          state: "s",
          nonce: "n",
        },
      ),
      refusal("UPSTREAM_UNAVAILABLE", /cannot read/),
    );
  });
});
