import assert from "node:assert/strict";
import { after, before, it } from "node:test";
import { generateKeyPair, SignJWT } from "jose";
import { failed, type Loose, matrix, ok, violations } from "../support/matrix.ts";
import { startProvider } from "../support/oidc-provider.ts";

/** A JWT with `alg: none`: anyone can make one, so nothing in it may cost Lading much. */
function unsigned(claims: Loose): string {
  const part = (o: Loose) => Buffer.from(JSON.stringify(o)).toString("base64url");
  return `${part({ alg: "none", typ: "JWT" })}.${part(claims)}.`;
}

/** Claim patterns are RE2: linear-time matching, refused syntax, and when each pattern runs. */
matrix(
  "claim patterns",
  (h) => {
    let provider: Awaited<ReturnType<typeof startProvider>>;
    before(async () => {
      provider = await startProvider();
    });
    after(() => provider.server.close());

    const org = () => h.server.org.groupUid;
    const create = async (claimMatch: Loose) =>
      ok(await h.api.create("identities", org(), { name: "w", claimMatch })).uid as string;

    async function exchange(token: string, identity: string) {
      const res = await fetch(`${h.server.apiUrl}/sts/exchange`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${token}`,
          "content-type": "application/x-www-form-urlencoded",
        },
        body: new URLSearchParams({ identity }).toString(),
      });
      const body = (await res.json()) as Loose;
      const reason = (body.details ?? []).find((d: Loose) => d.reason)?.reason;
      return { status: res.status, body, reason };
    }

    it("refuses an unsigned token whose iss backtracks in JavaScript at once, while /healthz answers", async () => {
      const uid = await create({ issuerPattern: "https://(a+)+$", subject: "x" });
      const token = unsigned({ iss: `https://${"a".repeat(34)}!`, sub: "x", aud: h.server.apiUrl });
      const started = performance.now();
      const refused = exchange(token, uid);
      const health = await fetch(`${h.server.apiUrl}/healthz`);
      const healthMs = performance.now() - started;
      const answer = await refused;
      const exchangeMs = performance.now() - started;
      assert.equal(health.status, 200);
      assert.equal(answer.status, 401, JSON.stringify(answer.body));
      assert.equal(answer.reason, "UPSTREAM_ISSUER");
      assert.ok(healthMs < 2000, `/healthz took ${healthMs.toFixed(0)} ms`);
      assert.ok(exchangeMs < 2000, `the exchange took ${exchangeMs.toFixed(0)} ms`);
    });

    it("refuses patterns RE2 cannot run at create and update, naming the field", async () => {
      const backreference = await h.api.create("identities", org(), {
        name: "w",
        claimMatch: { issuerPattern: "https://(a)\\1", subject: "x" },
      });
      assert.equal(failed(backreference).code, 3);
      const [issuer] = violations(backreference);
      assert.equal(issuer.field, "claim_match.issuer_pattern");
      assert.match(issuer.description, /must be an RE2 regular expression.*backreference/);

      const uid = await create({ issuer: "https://a.example", subject: "x" });
      const lookahead = await h.api.update(
        "identities",
        uid,
        { claimMatch: { subject: "", subjectPattern: "ci-(?!x).*" } },
        "claimMatch.subject,claimMatch.subjectPattern",
      );
      assert.equal(failed(lookahead).code, 3);
      const [subject] = violations(lookahead);
      assert.equal(subject.field, "claim_match.subject_pattern");
      assert.match(subject.description, /must be an RE2 regular expression.*lookahead/);
    });

    it("checks the subject pattern and extra claims only after the signature verifies", async () => {
      const uid = await create({
        issuer: provider.issuer,
        subjectPattern: "deploy-.*",
        claims: { env: "prod" },
      });
      const other = await generateKeyPair("ES256");
      const claims = { iss: provider.issuer, sub: "ci-x", aud: h.server.apiUrl };
      const forged = await new SignJWT(claims)
        .setProtectedHeader({ alg: "ES256", kid: "provider-key" })
        .setIssuedAt()
        .setExpirationTime("5m")
        .sign(other.privateKey);
      assert.equal((await exchange(forged, uid)).reason, "UPSTREAM_SIGNATURE");
      assert.equal((await exchange(await provider.sign(claims), uid)).reason, "UPSTREAM_SUBJECT");
      const good = await provider.sign({ ...claims, sub: "deploy-1", env: "prod" });
      assert.equal((await exchange(good, uid)).status, 200);
    });

    it("never matches a JavaScript-only pattern stored before patterns were RE2", async () => {
      const db = h.server.lading.store.db;
      const store = (uid: string, columns: Loose) =>
        db.updateTable("identities").set(columns).where("uid", "=", uid).execute();
      const token = await provider.token("ci-workload", h.server.apiUrl);

      const byIssuer = await create({
        issuerPattern: "http://127\\.0\\.0\\.1:[0-9]+",
        subject: "x",
      });
      await store(byIssuer, { issuer_pattern: "http://127\\.0\\.0\\.1:(?=[0-9])[0-9]+" });
      const issuerAnswer = await exchange(token, byIssuer);
      assert.equal(issuerAnswer.status, 401, JSON.stringify(issuerAnswer.body));
      assert.equal(issuerAnswer.reason, "UPSTREAM_ISSUER");

      const bySubject = await create({ issuer: provider.issuer, subjectPattern: "ci-.*" });
      await store(bySubject, { subject_pattern: "ci-(?!x).*" });
      assert.equal((await exchange(token, bySubject)).reason, "UPSTREAM_SUBJECT");

      ok(await h.api.get("identities", byIssuer));
      const touched = await h.api.update(
        "identities",
        byIssuer,
        { claimMatch: { subject: "y" } },
        "claimMatch.subject",
      );
      assert.deepEqual(
        violations(touched).map((v) => v.field),
        ["claim_match.issuer_pattern"],
      );
    });
  },
  // Providers and issuers in these tests listen on loopback, which the operator must allow.
  { outboundAllow: "127.0.0.1" },
);
