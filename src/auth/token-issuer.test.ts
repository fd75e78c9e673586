import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { decodeProtectedHeader, generateKeyPair, SignJWT } from "jose";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import { LadingError } from "../errors/index.ts";
import { createTokenIssuer, type TokenIssuer } from "./token-issuer.ts";

const issuerUrl = "https://lading.example";
const api = "https://lading.example";
const registry = "registry.lading.example";

/** Asserts that `promise` rejects with a LadingError of `code` and `reason`. */
async function rejects(promise: Promise<unknown>, code: number, reason: string): Promise<void> {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof LadingError, String(error));
    assert.equal(error.reason, reason);
    assert.equal(error.code, code);
    assert.equal(error.domain, "auth.lading.dev");
    return true;
  });
}

function tamper(token: string, change: Record<string, unknown>): string {
  const [header, payload, signature] = token.split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
  const forged = Buffer.from(JSON.stringify({ ...claims, ...change })).toString("base64url");
  return [header, forged, signature].join(".");
}

for (const kind of storeKinds) {
  describe(`token issuer on ${kind}`, () => {
    let t: Awaited<ReturnType<typeof openTestStore>>;
    let tokens: TokenIssuer;
    before(async () => {
      t = await openTestStore(kind);
      tokens = createTokenIssuer({ db: t.store.db, issuerUrl: `${issuerUrl}/` });
    });
    after(() => t.close());

    test("mints a token that verifies, with every documented claim", async () => {
      const token = await tokens.mint({ subject: "a".repeat(40), audience: api, ttlSeconds: 600 });
      const header = decodeProtectedHeader(token);
      assert.equal(header.alg, "ES256");
      assert.equal(header.kid, (await tokens.jwks()).keys[0].kid);
      const claims = await tokens.verify(token, { audience: api });
      assert.equal(claims.iss, issuerUrl);
      assert.equal(claims.sub, "a".repeat(40));
      assert.equal(claims.aud, api);
      assert.equal(claims.exp - claims.iat, 600);
      assert.match(claims.jti, /^[0-9a-f-]{36}$/);
      assert.equal(claims.act, undefined);
    });

    test("carries extra claims, which never override the registered ones", async () => {
      const access = [{ type: "repository", name: "acme/app", actions: ["pull"] }];
      const token = await tokens.mint({
        subject: "a".repeat(40),
        audience: api,
        ttlSeconds: 60,
        claims: { access, sub: "someone-else", iss: "https://evil.example", exp: 9_999_999_999 },
      });
      const claims = await tokens.verify(token, { audience: api });
      assert.deepEqual(claims.access, access);
      assert.equal(claims.sub, "a".repeat(40));
      assert.equal(claims.iss, issuerUrl);
      assert.equal(claims.exp - claims.iat, 60);
    });

    test("carries several audiences and the act claim", async () => {
      const act = { iss: "https://ci.example", sub: "repo:x", aud: "lading.example" };
      const token = await tokens.mint({
        subject: "b".repeat(40),
        audience: [api, registry],
        ttlSeconds: 60,
        act,
      });
      const claims = await tokens.verify(token, { audience: registry });
      assert.deepEqual(claims.aud, [api, registry]);
      assert.deepEqual(claims.act, act);
    });

    test("refuses an expired token", async () => {
      const past = createTokenIssuer({
        db: t.store.db,
        issuerUrl,
        clock: () => Date.now() - 2 * 3600_000,
      });
      const token = await past.mint({ subject: "c".repeat(40), audience: api, ttlSeconds: 3600 });
      await rejects(tokens.verify(token, { audience: api }), 16, "TOKEN_EXPIRED");
    });

    test("refuses a token for another audience with PERMISSION_DENIED", async () => {
      const token = await tokens.mint({ subject: "d".repeat(40), audience: api, ttlSeconds: 60 });
      await rejects(tokens.verify(token, { audience: registry }), 7, "TOKEN_AUDIENCE");
    });

    test("refuses tokens signed by a key outside the store", async () => {
      const { privateKey } = await generateKeyPair("ES256");
      const claims = { sub: "e".repeat(40), jti: "x" };
      const sign = (kid: string) =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: "ES256", kid })
          .setIssuer(issuerUrl)
          .setAudience(api)
          .setIssuedAt()
          .setExpirationTime("5m")
          .sign(privateKey);
      const realKid = (await tokens.jwks()).keys[0].kid ?? "";
      await rejects(tokens.verify(await sign("unknown"), { audience: api }), 16, "TOKEN_SIGNATURE");
      await rejects(tokens.verify(await sign(realKid), { audience: api }), 16, "TOKEN_SIGNATURE");
      const hs = await new SignJWT(claims)
        .setProtectedHeader({ alg: "HS256", kid: realKid })
        .sign(new Uint8Array(32));
      await rejects(tokens.verify(hs, { audience: api }), 16, "TOKEN_SIGNATURE");
    });

    test("refuses a tampered payload", async () => {
      const token = await tokens.mint({ subject: "f".repeat(40), audience: api, ttlSeconds: 60 });
      const forged = tamper(token, { sub: "0".repeat(40) });
      await rejects(tokens.verify(forged, { audience: api }), 16, "TOKEN_SIGNATURE");
    });

    test("refuses a token from another issuer sharing the keys", async () => {
      const other = createTokenIssuer({ db: t.store.db, issuerUrl: "https://elsewhere.example" });
      const token = await other.mint({ subject: "1".repeat(40), audience: api, ttlSeconds: 60 });
      await rejects(tokens.verify(token, { audience: api }), 16, "TOKEN_ISSUER");
    });

    test("refuses malformed tokens", async () => {
      for (const token of [undefined, "", "abc", "a.b.c", "e30.e30.e30.e30.e30"]) {
        await rejects(tokens.verify(token, { audience: api }), 16, "TOKEN_MALFORMED");
      }
    });

    test("mint validates its input", async () => {
      for (const ttlSeconds of [0, 1.5, 31 * 86_400]) {
        const minting = tokens.mint({ subject: "2".repeat(40), audience: api, ttlSeconds });
        await rejects(minting, 3, "INVALID_ARGUMENT");
      }
    });
  });
}
