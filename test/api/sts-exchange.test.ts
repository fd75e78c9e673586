import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { decodeJwt, exportJWK, generateKeyPair, SignJWT } from "jose";
import { listen, startProvider } from "../support/oidc-provider.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

const viewer = "63921b2c44617e3f2603851537be0123af4a57d7";

/** The extended exchange: claim patterns, audience, claims, static keys, scopes and re-minting. */
for (const kind of storeKinds) {
  describe(`sts exchange [${kind}]`, () => {
    let server: TestServer;
    let provider: Awaited<ReturnType<typeof startProvider>>;
    const call = (method: string, path: string, token: string, body?: unknown) =>
      fetch(`${server.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      }).then(async (res) => ({ status: res.status, body: (await res.json()) as Loose }));
    const asOwner = (method: string, path: string, body?: unknown) =>
      call(method, path, server.org.token, body);

    before(async () => {
      // The provider listens on loopback, which the operator must allow.
      server = await startTestServer(kind, "acme", { outboundAllow: "127.0.0.1" });
      provider = await startProvider();
    });
    after(async () => {
      provider.server.close();
      await server.close();
    });

    async function identity(body: Loose, parent = server.org.groupUid, bind = true) {
      const created = await asOwner("POST", `/iam/v2/identities/${parent}`, { name: "w", ...body });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      if (bind) {
        const binding = await asOwner("POST", `/iam/v2/roleBindings/${parent}`, {
          identityUid: created.body.uid,
          roleUid: viewer,
        });
        assert.equal(binding.status, 200, JSON.stringify(binding.body));
      }
      return created.body.uid as string;
    }

    async function exchange(token: string, params: Record<string, string | string[]>) {
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(params)) for (const x of [v].flat()) query.append(k, x);
      const res = await fetch(`${server.apiUrl}/sts/exchange`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: query.toString(),
      });
      const body = (await res.json()) as Loose;
      const reason = (body.details ?? []).find((d: Loose) => d.reason)?.reason;
      return { status: res.status, body, reason, token: body.token as string };
    }

    it("matches issuer and subject patterns anchored, and never contacts an issuer outside https", async () => {
      const uid = await identity({
        claimMatch: { issuerPattern: "http://127\\.0\\.0\\.1:[0-9]+", subjectPattern: "ci-.*" },
      });
      const good = await exchange(await provider.token("ci-workload", server.apiUrl), {
        identity: uid,
      });
      assert.equal(good.status, 200, JSON.stringify(good.body));
      const partial = await identity({
        claimMatch: { issuerPattern: "http://127\\.0\\.0\\.1", subjectPattern: "ci-.*" },
      });
      const unanchored = await exchange(await provider.token("ci-workload", server.apiUrl), {
        identity: partial,
      });
      assert.equal(unanchored.reason, "UPSTREAM_ISSUER");
      const other = await identity({
        claimMatch: { issuerPattern: "http://127\\.0\\.0\\.1:[0-9]+", subjectPattern: "deploy-.*" },
      });
      const wrongSub = await exchange(await provider.token("ci-workload", server.apiUrl), {
        identity: other,
      });
      assert.equal(wrongSub.reason, "UPSTREAM_SUBJECT");
      const any = await identity({ claimMatch: { issuerPattern: "http://.*", subject: "x" } });
      const plainHttp = await provider.sign({
        iss: "http://lading.invalid",
        sub: "x",
        aud: server.apiUrl,
      });
      const refused = await exchange(plainHttp, { identity: any });
      assert.equal(refused.status, 401);
      assert.equal(refused.reason, "UPSTREAM_ISSUER");
    });

    it("requires the identity's audience instead of Lading's when one is set", async () => {
      const uid = await identity({
        claimMatch: {
          issuer: provider.issuer,
          subject: "ci-workload",
          audience: "https://custom.example.com",
        },
      });
      const custom = await exchange(
        await provider.token("ci-workload", "https://custom.example.com"),
        { identity: uid },
      );
      assert.equal(custom.status, 200, JSON.stringify(custom.body));
      const lading = await exchange(await provider.token("ci-workload", server.apiUrl), {
        identity: uid,
      });
      assert.equal(lading.reason, "UPSTREAM_AUDIENCE");
    });

    it("requires every extra claim, comparing non-strings by their JSON form", async () => {
      const uid = await identity({
        claimMatch: {
          issuer: provider.issuer,
          subject: "repo",
          claims: { repository: "acme/app", run_attempt: "2", protected: "true" },
        },
      });
      const claims = { iss: provider.issuer, sub: "repo", aud: server.apiUrl };
      const match = await provider.sign({
        ...claims,
        repository: "acme/app",
        run_attempt: 2,
        protected: true,
      });
      assert.equal((await exchange(match, { identity: uid })).status, 200);
      for (const bad of [
        { repository: "acme/other", run_attempt: 2, protected: true },
        { repository: "acme/app", run_attempt: 3, protected: true },
        { repository: "acme/app", run_attempt: 2 },
      ]) {
        const res = await exchange(await provider.sign({ ...claims, ...bad }), { identity: uid });
        assert.equal(res.status, 401, JSON.stringify(bad));
      }
    });

    it("exchanges a JWT signed by a static key without contacting its issuer", async () => {
      const { privateKey, publicKey } = await generateKeyPair("ES256", { extractable: true });
      const jwk = { ...(await exportJWK(publicKey)), kid: "ci", alg: "ES256" };
      const issuer = "https://unreachable.invalid";
      const uid = await identity({
        staticKeys: { issuer, subject: "builder", issuerKeys: JSON.stringify({ keys: [jwk] }) },
      });
      const sign = (claims: Loose, key = privateKey, exp: string | number = "5m") =>
        new SignJWT(claims)
          .setProtectedHeader({ alg: "ES256", kid: "ci" })
          .setIssuedAt()
          .setExpirationTime(exp)
          .sign(key);
      const good = await exchange(await sign({ iss: issuer, sub: "builder", aud: server.apiUrl }), {
        identity: uid,
      });
      assert.equal(good.status, 200, JSON.stringify(good.body));
      assert.deepEqual(decodeJwt(good.token).act, {
        iss: issuer,
        sub: "builder",
        aud: server.apiUrl,
      });
      assert.equal((await call("GET", "/iam/v2/groups", good.token)).status, 200);

      const other = await generateKeyPair("ES256");
      const claims = { iss: issuer, sub: "builder", aud: server.apiUrl };
      assert.equal(
        (await exchange(await sign(claims, other.privateKey), { identity: uid })).reason,
        "UPSTREAM_SIGNATURE",
      );
      assert.equal(
        (await exchange(await sign({ ...claims, sub: "other" }), { identity: uid })).reason,
        "UPSTREAM_SUBJECT",
      );
      assert.equal(
        (await exchange(await sign({ ...claims, aud: "elsewhere" }), { identity: uid })).reason,
        "UPSTREAM_AUDIENCE",
      );
      const stale = await sign(claims, privateKey, Math.floor(Date.now() / 1000) - 60);
      assert.equal((await exchange(stale, { identity: uid })).reason, "UPSTREAM_EXPIRED");

      await server.lading.store.db
        .updateTable("identities")
        .set({ expire_time: new Date(Date.now() - 1000).toISOString() })
        .where("uid", "=", uid)
        .execute();
      const expired = await exchange(await sign(claims), { identity: uid });
      assert.equal(expired.status, 401);
      assert.equal((await call("GET", "/iam/v2/groups", good.token)).status, 401);
    });

    it("narrows a token to the requested scopes", async () => {
      const team = await asOwner("POST", `/iam/v2/groups/${server.org.groupUid}`, { name: "team" });
      assert.equal(team.status, 200, JSON.stringify(team.body));
      const teamUid = team.body.uid as string;
      const uid = await identity({
        claimMatch: { issuer: provider.issuer, subject: "ci-workload" },
      });
      const upstream = await provider.token("ci-workload", server.apiUrl);
      const scoped = await exchange(upstream, { identity: uid, scopes: teamUid });
      assert.equal(scoped.status, 200, JSON.stringify(scoped.body));
      assert.deepEqual(decodeJwt(scoped.token).scopes, [teamUid]);
      const list = await call("GET", "/iam/v2/groups", scoped.token);
      assert.deepEqual(
        list.body.groups.map((g: Loose) => g.uid),
        [teamUid],
      );
      assert.equal((await call("GET", `/iam/v2/groups/${teamUid}`, scoped.token)).status, 200);
      const atOrg = await call("GET", `/iam/v2/groups/${server.org.groupUid}`, scoped.token);
      assert.ok(atOrg.status === 403 || atOrg.status === 404, String(atOrg.status));

      const inTeam = await identity(
        { claimMatch: { issuer: provider.issuer, subject: "ci-workload" } },
        teamUid,
      );
      const outside = await exchange(upstream, { identity: inTeam, scopes: server.org.groupUid });
      assert.equal(outside.status, 400);
      const bad = outside.body.details.find((d: Loose) => d.fieldViolations);
      assert.equal(bad.fieldViolations[0].field, "scopes");
      const unknown = await exchange(upstream, {
        identity: uid,
        scopes: `${server.org.groupUid}/0123456789abcdef`,
      });
      assert.equal(unknown.status, 400);
    });

    it("re-mints a Lading token for the registry audience, only ever narrower and never longer", async () => {
      const presented = server.org.token;
      const registry = server.lading.registryAudience;
      const reminted = await exchange(presented, { aud: registry });
      assert.equal(reminted.status, 200, JSON.stringify(reminted.body));
      const claims = decodeJwt(reminted.token);
      assert.equal(claims.sub, server.org.identityUid);
      assert.equal(claims.aud, registry);
      assert.ok((claims.exp ?? 0) <= (decodeJwt(presented).exp ?? 0));
      const v2 = await fetch(`${server.lading.registryUrl}/v2/`, {
        headers: { authorization: `Bearer ${reminted.token}` },
      });
      assert.equal(v2.status, 200);
      assert.equal((await call("GET", "/iam/v2/groups", reminted.token)).status, 403);

      const same = await exchange(presented, { identity: server.org.identityUid, aud: registry });
      assert.equal(same.status, 200);
      const wrongIdentity = await exchange(presented, {
        identity: `${server.org.groupUid}/0123456789abcdef`,
      });
      assert.equal(wrongIdentity.status, 400);

      const team = await asOwner("POST", `/iam/v2/groups/${server.org.groupUid}`, {
        name: "team2",
      });
      const teamUid = team.body.uid as string;
      const narrowed = await exchange(presented, { scopes: teamUid });
      assert.equal(narrowed.status, 200);
      const wider = await exchange(narrowed.token, { scopes: server.org.groupUid });
      assert.equal(wider.status, 400);
      const kept = await exchange(narrowed.token, { aud: registry });
      assert.deepEqual(decodeJwt(kept.token).scopes, [teamUid]);

      const pull = await fetch(
        `${server.lading.registryUrl}/token?service=${registry}&scope=repository:acme/app:pull`,
        { headers: { authorization: `Bearer ${reminted.token}` } },
      );
      const registryToken = ((await pull.json()) as Loose).token as string;
      assert.equal((await exchange(registryToken, { aud: registry })).status, 401);
    });

    it("never fetches keys from a jwks_uri on a loopback spelling the operator did not allow", async () => {
      // The operator allows 127.0.0.1 only: a discovery document there may not send Lading on
      // to another loopback address, 0.0.0.0 (which reaches this machine) or [::1]. Each
      // spelling gets its own issuer path, since an issuer's discovery is cached.
      const spellings = ["0.0.0.0", "127.0.0.2", "[::1]", "[::ffff:127.0.0.3]", "2130706434"];
      const seen: string[] = [];
      const issuerServer = await listen((req, res) => {
        seen.push(req.url ?? "");
        const path = (req.url ?? "").replace("/.well-known/openid-configuration", "");
        const spelling = spellings[Number(path.slice(2))] ?? "127.0.0.1";
        res.setHeader("content-type", "application/json");
        res.end(
          JSON.stringify({
            issuer: `${issuerServer.url}${path}`,
            jwks_uri: `http://${spelling}:${new URL(issuerServer.url).port}/jwks`,
          }),
        );
      });
      try {
        const { privateKey } = await generateKeyPair("ES256");
        for (const [i, spelling] of spellings.entries()) {
          const iss = `${issuerServer.url}/s${i}`;
          const uid = await identity({ claimMatch: { issuer: iss, subject: "ci" } });
          const token = await new SignJWT({ sub: "ci", aud: server.apiUrl })
            .setProtectedHeader({ alg: "ES256", kid: "k" })
            .setIssuer(iss)
            .setExpirationTime("5m")
            .sign(privateKey);
          const refused = await exchange(token, { identity: uid });
          assert.equal(refused.status, 503, spelling);
          assert.equal(refused.reason, "UPSTREAM_UNAVAILABLE", spelling);
          assert.match(refused.body.message, /destination not allowed/, spelling);
        }
        assert.equal(seen.length, spellings.length, "each allowed discovery document was read");
        assert.deepEqual(
          seen.filter((url) => url === "/jwks"),
          [],
        );
      } finally {
        issuerServer.server.closeAllConnections();
        issuerServer.server.close();
      }
    });
  });
}

// biome-ignore lint/suspicious/noExplicitAny: tests assert on the shape themselves
type Loose = Record<string, any>;
