import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { timestamp } from "../support/matrix.ts";
import { startProvider } from "../support/oidc-provider.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

const viewer = "63921b2c44617e3f2603851537be0123af4a57d7";

/** Workload identity federation end to end: a real provider's token, exchanged, then used. */
for (const kind of storeKinds) {
  describe(`workload identity federation [${kind}]`, () => {
    let server: TestServer;
    let provider: Awaited<ReturnType<typeof startProvider>>;
    const asOwner = (method: string, path: string, body?: unknown) =>
      fetch(`${server.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${server.org.token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (res) => ({
        status: res.status,
        body: (await res.json()) as Record<string, never>,
      }));

    before(async () => {
      // The provider listens on loopback, which the operator must allow.
      server = await startTestServer(kind, "acme", { outboundAllow: "127.0.0.1" });
      provider = await startProvider();
    });
    after(async () => {
      provider.server.close();
      await server.close();
    });

    async function workload(subject: string, issuer = provider.issuer) {
      const created = await asOwner("POST", `/iam/v2/identities/${server.org.groupUid}`, {
        name: "ci",
        claimMatch: { issuer, subject },
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      await asOwner("POST", `/iam/v2/roleBindings/${server.org.groupUid}`, {
        identityUid: created.body.uid,
        roleUid: viewer,
      });
      return created.body.uid as string;
    }

    const exchange = (identity: string, token: string) =>
      fetch(`${server.apiUrl}/sts/exchange?identity=${encodeURIComponent(identity)}`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}` },
      });

    it("exchanges the provider's token for a Lading token that works on the API, and records lastSeenTime", async () => {
      const uid = await workload("ci-workload");
      assert.equal(
        (await asOwner("GET", `/iam/v2/identities/${uid}`)).body.lastSeenTime,
        undefined,
      );
      const res = await exchange(uid, await provider.token("ci-workload", server.apiUrl));
      assert.equal(res.status, 200);
      const { token } = (await res.json()) as { token: string };
      const claims = JSON.parse(Buffer.from(token.split(".")[1], "base64url").toString());
      assert.equal(claims.sub, uid);
      assert.equal(claims.iss, server.apiUrl);
      const groups = await fetch(`${server.apiUrl}/iam/v2/groups`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(groups.status, 200);
      assert.deepEqual(
        ((await groups.json()) as { groups: { uid: string }[] }).groups.map((g) => g.uid),
        [server.org.groupUid],
      );
      const seen = (await asOwner("GET", `/iam/v2/identities/${uid}`)).body.lastSeenTime as string;
      assert.match(seen, timestamp);
    });

    it("exchanges for the registry audience, and that token works on the registry but not the API", async () => {
      const uid = await workload("ci-workload");
      const upstream = await provider.token("ci-workload", server.apiUrl);
      const res = await fetch(
        `${server.apiUrl}/sts/exchange?identity=${encodeURIComponent(uid)}&aud=${encodeURIComponent(server.lading.registryAudience)}`,
        { method: "POST", headers: { authorization: `Bearer ${upstream}` } },
      );
      assert.equal(res.status, 200);
      const { token } = (await res.json()) as { token: string };
      const registry = await fetch(`${server.lading.registryUrl}/v2/`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(registry.status, 200);
      const api = await fetch(`${server.apiUrl}/iam/v2/groups`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(api.status, 403);
      const elsewhere = await fetch(
        `${server.apiUrl}/sts/exchange?identity=${encodeURIComponent(uid)}&aud=https://sink.example.com`,
        {
          method: "POST",
          headers: { authorization: `Bearer ${upstream}` },
        },
      );
      assert.ok(elsewhere.status >= 400 && elsewhere.status < 500);
    });

    it("refuses a token whose subject or issuer is not the identity's, and an expired one", async () => {
      const other = await workload("someone-else");
      const res = await exchange(other, await provider.token("ci-workload", server.apiUrl));
      assert.equal(res.status, 401);
      const foreignIssuer = await workload(
        "ci-workload",
        "https://token.actions.githubusercontent.com",
      );
      assert.equal(
        (await exchange(foreignIssuer, await provider.token("ci-workload", server.apiUrl))).status,
        401,
      );
      const shortLived = await workload("short-lived");
      const aMinuteAgo = Math.floor(Date.now() / 1000) - 60;
      const stale = await provider.sign(
        { iss: provider.issuer, sub: "short-lived", aud: server.apiUrl },
        aMinuteAgo,
      );
      const expired = await exchange(shortLived, stale);
      assert.equal(expired.status, 401);
      const body = (await expired.json()) as { code: number; details: { reason?: string }[] };
      assert.equal(body.code, 16);
      assert.ok(
        body.details.some((d) => d.reason === "UPSTREAM_EXPIRED"),
        JSON.stringify(body),
      );
    });
  });
}
