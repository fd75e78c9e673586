import assert from "node:assert/strict";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { generateKeyPair, SignJWT } from "jose";
import type { Resolver } from "../../src/outbound/index.ts";
import { type Result, restCall } from "../support/api-client.ts";
import { cliLoginUrl } from "../support/browser-sign-in.ts";
import { providerBody } from "../support/federation-api.ts";
import type { Loose } from "../support/matrix.ts";
import { listen } from "../support/oidc-provider.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

/**
 * The outside review's repros (finding 3) against a server with the default settings: nothing
 * internal is allowed. Names under `.example.test` resolve to 127.0.0.1 through the server's
 * resolver hook, so a name that resolves to loopback is tested without the machine's resolver.
 * The only listener is on 127.0.0.1 and records every request it gets: none may arrive.
 */
const loopbackNames: Resolver = async (hostname) => {
  if (hostname.endsWith(".example.test")) return [{ address: "127.0.0.1", family: 4 }];
  throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
};

const fields = (r: Result) =>
  r.ok
    ? []
    : ((r.details.find((d) => d.fieldViolations)?.fieldViolations ?? []) as Loose[]).map(
        (v) => v.field,
      );

for (const kind of storeKinds) {
  describe(`outbound requests on a tenant's behalf [${kind}]`, () => {
    let server: TestServer;
    let internal: { server: Server; url: string };
    let port = 0;
    const hits: string[] = [];
    const asOwner = (method: string, path: string, body?: Loose) =>
      restCall(server.apiUrl, server.org.token, method, path, body);

    before(async () => {
      internal = await listen((req, res) => {
        hits.push(`${req.method} ${req.url}`);
        res.setHeader("content-type", "application/json");
        res.end("{}");
      });
      port = (internal.server.address() as AddressInfo).port;
      server = await startTestServer(kind, "acme", {}, undefined, { resolve: loopbackNames });
    });
    after(async () => {
      internal.server.closeAllConnections();
      internal.server.close();
      await server?.close();
    });

    it("logs 'destination not allowed' for a sink whose name resolves to loopback, never a socket error", async () => {
      const closed = await listen(() => {});
      const closedPort = (closed.server.address() as AddressInfo).port;
      await new Promise((resolve) => closed.server.close(resolve));
      const sinks = [
        `https://hooks.example.test:${port}/hook`,
        "https://db.example.test:5432/hook",
        `https://hooks.example.test:${closedPort}/hook`,
      ];
      for (const sink of sinks) {
        const created = await asOwner("POST", `/events/v2/subscriptions/${server.org.groupUid}`, {
          sink,
        });
        assert.ok(created.ok, JSON.stringify(created));
        const uid = created.body.uid as string;
        let delivery: Loose = {};
        for (let i = 0; i < 150 && !delivery.lastError; i++) {
          await new Promise((resolve) => setTimeout(resolve, 100));
          const log = await asOwner("GET", `/events/v2/subscriptions/${uid}/deliveries`);
          delivery = ((log.ok && (log.body.deliveries as Loose[])) || [])[0] ?? {};
        }
        assert.equal(delivery.lastError, "destination not allowed", sink);
        assert.equal(delivery.lastStatus ?? 0, 0, sink);
        assert.equal(delivery.state, "pending", `${sink} is retried, not dropped`);
      }
      assert.deepEqual(hits, []);
    });

    it("refuses an identity provider on a literal internal address when it is created", async () => {
      for (const issuer of [
        `http://127.0.0.1:${port}/internal/admin`,
        `https://127.1:${port}`,
        "https://0.0.0.0",
        "https://[::ffff:127.0.0.1]",
        "https://localhost",
        "https://10.0.0.5/realms/corp",
      ]) {
        const r = await asOwner(
          "POST",
          `/iam/v2/identityProviders/${server.org.groupUid}`,
          providerBody({ name: "corp" }, { issuer }),
        );
        assert.deepEqual(fields(r), ["oidc.issuer"], issuer);
      }
      assert.deepEqual(hits, []);
    });

    it("never fetches the discovery document of a provider whose name resolves internal", async () => {
      const created = await asOwner(
        "POST",
        `/iam/v2/identityProviders/${server.org.groupUid}`,
        providerBody({ name: "resolves-internal" }, { issuer: `https://idp.example.test:${port}` }),
      );
      assert.ok(created.ok, JSON.stringify(created));
      const start = await fetch(cliLoginUrl(server.apiUrl, created.body.uid as string).loginUrl, {
        redirect: "manual",
      });
      const body = (await start.json()) as Loose;
      assert.equal(start.status, 503, JSON.stringify(body));
      assert.match(body.message, /destination not allowed/);
      // Nor can an update point it at a literal internal address.
      const moved = await asOwner(
        "PATCH",
        `/iam/v2/identityProviders/${created.body.uid}?updateMask=oidc.issuer`,
        { oidc: { issuer: `http://127.0.0.1:${port}` } },
      );
      assert.deepEqual(fields(moved), ["oidc.issuer"]);
      assert.deepEqual(hits, []);
    });

    it("refuses a claim-match issuer on a literal internal address when it is created", async () => {
      for (const issuer of [
        `http://127.0.0.1:${port}`,
        "https://[::1]",
        "https://169.254.169.254",
      ]) {
        const r = await asOwner("POST", `/iam/v2/identities/${server.org.groupUid}`, {
          name: "ci",
          claimMatch: { issuer, subject: "ci" },
        });
        assert.deepEqual(fields(r), ["claim_match.issuer"], issuer);
      }
      const named = await asOwner("POST", `/iam/v2/identities/${server.org.groupUid}`, {
        name: "ci",
        claimMatch: { issuer: "https://ci.example.test", subject: "ci" },
      });
      assert.ok(named.ok, JSON.stringify(named));
      const moved = await asOwner(
        "PATCH",
        `/iam/v2/identities/${named.body.uid}?updateMask=claim_match.issuer`,
        { claimMatch: { issuer: "https://127.0.0.1" } },
      );
      assert.deepEqual(fields(moved), ["claim_match.issuer"]);
    });

    it("never lets an anonymous token exchange fetch an internal issuer a pattern admits", async () => {
      const { privateKey } = await generateKeyPair("ES256");
      const cases = [
        { pattern: "http://127\\.0\\.0\\.1:[0-9]+", iss: `http://127.0.0.1:${port}` },
        {
          pattern: "https://[a-z]+\\.example\\.test:[0-9]+",
          iss: `https://sts.example.test:${port}`,
        },
      ];
      for (const { pattern, iss } of cases) {
        const identity = await asOwner("POST", `/iam/v2/identities/${server.org.groupUid}`, {
          name: "workload",
          claimMatch: { issuerPattern: pattern, subject: "ci" },
        });
        assert.ok(identity.ok, JSON.stringify(identity));
        const token = await new SignJWT({ sub: "ci", aud: server.apiUrl })
          .setProtectedHeader({ alg: "ES256" })
          .setIssuer(iss)
          .setExpirationTime("5m")
          .sign(privateKey);
        const res = await fetch(`${server.apiUrl}/sts/exchange`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${token}`,
            "content-type": "application/x-www-form-urlencoded",
          },
          body: new URLSearchParams({ identity: identity.body.uid as string }).toString(),
        });
        const body = (await res.json()) as Loose;
        assert.equal(res.status, 503, JSON.stringify(body));
        assert.equal(body.details[0].reason, "UPSTREAM_UNAVAILABLE");
        assert.match(body.message, /destination not allowed/);
      }
      assert.deepEqual(hits, []);
    });
  });
}
