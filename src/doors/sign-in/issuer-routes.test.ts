import assert from "node:assert/strict";
import type { Server } from "node:http";
import { after, before, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import type { JWK } from "jose";
import { pino } from "pino";
import { listen, startProvider } from "../../../test/support/oidc-provider.ts";
import { openTestStore, storeKinds } from "../../../test/support/stores.ts";
import { createTokenIssuer, type TokenIssuer } from "../../auth/index.ts";
import { LadingError } from "../../errors/index.ts";
import { createOutboundGuard } from "../../outbound/index.ts";
import { identityExtras } from "../../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../../uidp/index.ts";
import { createIssuerRoutes } from "./issuer-routes.ts";

/** The fields of an exchange answer or of a rendered error that the tests read. */
interface ExchangeBody {
  token: string;
  expiry: string;
  message: string;
  details: [{ reason: string }, { fieldViolations: { field: string }[] }];
}

const statusOf: Record<number, number> = { 3: 400, 5: 404, 7: 403, 14: 503, 16: 401 };
const registry = "registry.lading.example";

for (const kind of storeKinds) {
  describe(`issuer routes on ${kind}`, () => {
    let t: Awaited<ReturnType<typeof openTestStore>>;
    let provider: Awaited<ReturnType<typeof startProvider>>;
    let lading: { server: Server; url: string };
    let tokens: TokenIssuer;
    const org = newRootUid();
    const now = new Date().toISOString();

    async function addIdentity(issuer: string, subject: string): Promise<string> {
      const uid = newChildUid(org);
      await t.store.db
        .insertInto("identities")
        .values({
          uid,
          parent_uid: org,
          name: "ci",
          description: "",
          issuer,
          subject,
          ...identityExtras,
          last_seen_time: null,
          create_time: now,
          update_time: now,
        })
        .execute();
      return uid;
    }

    async function exchange(query: string, token?: string, init: RequestInit = {}) {
      const headers = new Headers(init.headers);
      if (token) headers.set("authorization", `Bearer ${token}`);
      const response = await fetch(`${lading.url}/sts/exchange?${query}`, {
        method: "POST",
        ...init,
        headers,
      });
      return { status: response.status, body: (await response.json()) as ExchangeBody };
    }

    function refused(
      result: { status: number; body: ExchangeBody },
      status: number,
      reason: string,
    ) {
      assert.equal(result.status, status, JSON.stringify(result.body));
      assert.equal(result.body.details[0].reason, reason);
    }

    before(async () => {
      t = await openTestStore(kind);
      let routes: ReturnType<typeof createIssuerRoutes> = [];
      lading = await listen(async (req, res) => {
        const path = new URL(req.url ?? "/", "http://x").pathname;
        const route = routes.find((r) => r.method === req.method && r.path === path);
        if (!route) {
          res.statusCode = 404;
          res.end("{}");
          return;
        }
        try {
          const ctx = {
            requestId: "test",
            log: pino({ enabled: false }),
            signal: AbortSignal.timeout(10_000),
          };
          await route.handle(req, res, ctx);
        } catch (error) {
          res.statusCode = error instanceof LadingError ? (statusOf[error.code] ?? 500) : 500;
          res.setHeader("content-type", "application/json");
          const body =
            error instanceof LadingError
              ? {
                  code: error.code,
                  message: error.message,
                  details: [
                    { reason: error.reason, domain: error.domain },
                    { fieldViolations: error.fieldViolations },
                  ],
                }
              : { message: String(error) };
          res.end(JSON.stringify(body));
        }
      });
      tokens = createTokenIssuer({ db: t.store.db, issuerUrl: lading.url });
      routes = createIssuerRoutes({
        db: t.store.db,
        tokens,
        issuerUrl: lading.url,
        apiAudience: lading.url,
        allowedAudiences: [lading.url, registry],
        upstream: { clockToleranceSeconds: 0 },
        outbound: createOutboundGuard({ allow: { hosts: [], cidrs: ["127.0.0.1/32"] } }),
      });
      provider = await startProvider();
    });
    after(async () => {
      lading.server.close();
      provider.server.close();
      lading.server.closeAllConnections();
      provider.server.closeAllConnections();
      await t.close();
    });

    test("serves the discovery document and public keys only", async () => {
      const doc = await fetch(`${lading.url}/.well-known/openid-configuration`);
      const body = (await doc.json()) as Record<string, unknown>;
      assert.equal(body.issuer, lading.url);
      assert.equal(body.jwks_uri, `${lading.url}/.well-known/jwks.json`);
      assert.equal(body.token_endpoint, `${lading.url}/sts/exchange`);
      assert.deepEqual(body.id_token_signing_alg_values_supported, ["ES256"]);
      assert.deepEqual(body.subject_types_supported, ["public"]);
      await tokens.mint({ subject: org, audience: lading.url, ttlSeconds: 60 });
      const jwks = await fetch(`${lading.url}/.well-known/jwks.json`);
      assert.equal(jwks.headers.get("cache-control"), "public, max-age=300");
      const { keys } = (await jwks.json()) as { keys: JWK[] };
      assert.equal(keys.length, 1);
      assert.equal(keys[0].d, undefined);
      assert.equal(keys[0].alg, "ES256");
    });

    test("exchanges a real provider token for a Lading token", async () => {
      const identity = await addIdentity(provider.issuer, "ci-workload");
      const upstream = await provider.token("ci-workload", lading.url);
      const before = Date.now();
      const result = await exchange(`identity=${identity}`, upstream);
      assert.equal(result.status, 200, JSON.stringify(result.body));
      const claims = await tokens.verify(result.body.token, { audience: lading.url });
      assert.equal(claims.sub, identity);
      assert.equal(claims.aud, lading.url);
      assert.equal(claims.exp - claims.iat, 3600);
      assert.deepEqual(claims.act, { iss: provider.issuer, sub: "ci-workload", aud: lading.url });
      assert.equal(result.body.expiry, new Date(claims.exp * 1000).toISOString());
      const row = await t.store.db
        .selectFrom("identities")
        .select(["last_seen_time", "update_time"])
        .where("uid", "=", identity)
        .executeTakeFirstOrThrow();
      assert.ok(row.last_seen_time && Date.parse(row.last_seen_time) >= before - 1);
      assert.equal(row.update_time, now);
    });

    test("accepts form bodies, GET, several audiences and the issuer host as upstream aud", async () => {
      const identity = await addIdentity(provider.issuer, "ci-workload");
      const upstream = await provider.token("ci-workload", lading.url);
      const form = await exchange("", upstream, {
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams([
          ["identity", identity],
          ["aud", lading.url],
          ["aud", registry],
        ]),
      });
      assert.equal(form.status, 200, JSON.stringify(form.body));
      const claims = await tokens.verify(form.body.token, { audience: registry });
      assert.deepEqual(claims.aud, [lading.url, registry]);

      const hostAud = await provider.sign({
        iss: provider.issuer,
        sub: "ci-workload",
        aud: new URL(lading.url).host,
      });
      const get = await exchange(`identity=${identity}&aud=${registry}`, hostAud, {
        method: "GET",
      });
      assert.equal(get.status, 200, JSON.stringify(get.body));
      assert.equal((await tokens.verify(get.body.token, { audience: registry })).aud, registry);
    });

    test("refuses a token whose subject the identity does not trust", async () => {
      const identity = await addIdentity(provider.issuer, "repo:acme/app:ref:refs/heads/main");
      const upstream = await provider.token("ci-workload", lading.url);
      refused(await exchange(`identity=${identity}`, upstream), 401, "UPSTREAM_SUBJECT");
    });

    test("refuses a token from another issuer, and an unknown identity the same way", async () => {
      const identity = await addIdentity(
        "https://token.actions.githubusercontent.com",
        "ci-workload",
      );
      const upstream = await provider.token("ci-workload", lading.url);
      const wrongIssuer = await exchange(`identity=${identity}`, upstream);
      refused(wrongIssuer, 401, "UPSTREAM_ISSUER");
      const unknown = await exchange(`identity=${newChildUid(org)}`, upstream);
      refused(unknown, 401, "UPSTREAM_ISSUER");
      assert.equal(unknown.body.message, wrongIssuer.body.message);
    });

    test("refuses an upstream token for another audience", async () => {
      const identity = await addIdentity(provider.issuer, "ci-workload");
      const upstream = await provider.token("ci-workload", "https://elsewhere.example");
      refused(await exchange(`identity=${identity}`, upstream), 401, "UPSTREAM_AUDIENCE");
    });

    test("refuses an expired upstream token", async () => {
      const identity = await addIdentity(provider.issuer, "short-lived");
      const upstream = await provider.token("short-lived", lading.url);
      await sleep(2100);
      refused(await exchange(`identity=${identity}`, upstream), 401, "UPSTREAM_EXPIRED");
    });

    test("refuses a tampered upstream token", async () => {
      const identity = await addIdentity(provider.issuer, "ci-workload");
      const [header, payload, signature] = (await provider.token("ci-workload", lading.url)).split(
        ".",
      );
      const claims = JSON.parse(Buffer.from(payload, "base64url").toString());
      const forged = Buffer.from(JSON.stringify({ ...claims, exp: claims.exp + 86_400 }));
      const tampered = [header, forged.toString("base64url"), signature].join(".");
      refused(await exchange(`identity=${identity}`, tampered), 401, "UPSTREAM_SIGNATURE");
    });

    test("answers UNAVAILABLE when the identity's issuer cannot be reached", async () => {
      const unreachable = "http://127.0.0.1:1";
      const identity = await addIdentity(unreachable, "ci-workload");
      const upstream = await provider.sign({
        iss: unreachable,
        sub: "ci-workload",
        aud: lading.url,
      });
      refused(await exchange(`identity=${identity}`, upstream), 503, "UPSTREAM_UNAVAILABLE");
    });

    test("refuses missing and invalid parameters and credentials", async () => {
      const identity = await addIdentity(provider.issuer, "ci-workload");
      const upstream = await provider.token("ci-workload", lading.url);
      const missing = await exchange("", upstream);
      refused(missing, 400, "INVALID_ARGUMENT");
      assert.equal(missing.body.details[1].fieldViolations[0].field, "identity");
      refused(await exchange("identity=not-a-uid", upstream), 400, "INVALID_ARGUMENT");
      const badAud = await exchange(`identity=${identity}&aud=https://evil.example`, upstream);
      assert.equal(badAud.body.details[1].fieldViolations[0].field, "aud");
      const json = await exchange("", upstream, {
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ identity }),
      });
      assert.equal(json.body.details[1].fieldViolations[0].field, "body");
      refused(await exchange(`identity=${identity}`), 401, "TOKEN_MISSING");
      refused(await exchange(`identity=${identity}`, "garbage"), 401, "TOKEN_MALFORMED");
      const basic = await exchange(`identity=${identity}`, undefined, {
        headers: { authorization: "Basic eDp5" },
      });
      refused(basic, 401, "TOKEN_MALFORMED");
    });
  });
}
