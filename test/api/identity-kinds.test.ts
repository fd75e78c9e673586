import assert from "node:assert/strict";
import { it } from "node:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { exportJWK, generateKeyPair } from "jose";
import { failed, matrix, ok, violations } from "../support/matrix.ts";

const day = 86_400_000;

async function publicJwks(count = 1): Promise<string> {
  const keys = [];
  for (let i = 0; i < count; i++) {
    const { publicKey } = await generateKeyPair("ES256", { extractable: true });
    keys.push({ ...(await exportJWK(publicKey)), kid: `k${i}`, alg: "ES256", use: "sig" });
  }
  return JSON.stringify({ keys });
}

async function privateJwks(): Promise<string> {
  const { privateKey } = await generateKeyPair("ES256", { extractable: true });
  return JSON.stringify({ keys: [{ ...(await exportJWK(privateKey)), kid: "p", alg: "ES256" }] });
}

/** Claim-match, static-key and plain identities: create, read, update, and every validation rule. */
matrix("identity kinds", (h) => {
  const org = () => h.server.org.groupUid;
  const fields = (result: Parameters<typeof violations>[0]) =>
    violations(result)
      .map((v) => v.field)
      .sort();

  it("creates and reads a claim-match identity with patterns, audience and claims", async () => {
    const claimMatch = {
      issuerPattern: "https://token\\.example\\.com/[a-z]+",
      subject: "",
      subjectPattern: "repo:acme/.*",
      issuer: "",
      audience: "https://custom.example.com",
      claims: { repository: "acme/app", run_attempt: "1" },
    };
    const created = ok(await h.api.create("identities", org(), { name: "ci", claimMatch }));
    assert.deepEqual(created.claimMatch, claimMatch);
    assert.equal(created.staticKeys, undefined);
    assert.equal(created.email, "");
    assert.deepEqual(ok(await h.api.get("identities", created.uid)), created);
  });

  it("creates a static-key identity whose expiration defaults to 365 days after creation", async () => {
    const issuerKeys = await publicJwks(2);
    const created = ok(
      await h.api.create("identities", org(), {
        name: "puller",
        staticKeys: { issuer: "https://keys.example.com", subject: "puller", issuerKeys },
      }),
    );
    assert.equal(created.claimMatch, undefined);
    assert.equal(created.staticKeys.issuerKeys, issuerKeys);
    assert.deepEqual(created.staticKeys.audiences, []);
    assert.equal(
      Date.parse(created.staticKeys.expirationTime),
      Date.parse(created.createTime) + 365 * day,
    );
    const expirationTime = new Date(Date.now() + 30 * day).toISOString();
    const custom = ok(
      await h.api.create("identities", org(), {
        name: "puller2",
        staticKeys: {
          issuer: "https://keys.example.com",
          subject: "puller",
          issuerKeys,
          expirationTime,
          audiences: ["registry.example.com"],
        },
      }),
    );
    assert.equal(custom.staticKeys.expirationTime, expirationTime);
    assert.deepEqual(custom.staticKeys.audiences, ["registry.example.com"]);
    assert.deepEqual(ok(await h.api.get("identities", custom.uid)), custom);
  });

  it("creates a plain identity with neither kind", async () => {
    const created = ok(await h.api.create("identities", org(), { name: "plain" }));
    assert.equal(created.claimMatch, undefined);
    assert.equal(created.staticKeys, undefined);
  });

  it("rejects every claim-match violation with a field violation", async () => {
    const cases: [JsonObject, string[]][] = [
      [
        { issuer: "https://a.example", issuerPattern: "x", subject: "s" },
        ["claim_match.issuer_pattern"],
      ],
      [{ subject: "s" }, ["claim_match.issuer"]],
      [
        { issuer: "https://a.example", subject: "s", subjectPattern: "s" },
        ["claim_match.subject_pattern"],
      ],
      [{ issuer: "https://a.example" }, ["claim_match.subject"]],
      [{ issuerPattern: "https://(", subject: "s" }, ["claim_match.issuer_pattern"]],
      [
        { issuer: "https://a.example", subjectPattern: "a".repeat(1025) },
        ["claim_match.subject_pattern"],
      ],
      [{ issuer: "ftp://a.example", subject: "s" }, ["claim_match.issuer"]],
      [{ issuer: "https://a.example", subject: "s", audience: "a b" }, ["claim_match.audience"]],
      [
        { issuer: "https://a.example", subject: "s", claims: { sub: "x" } },
        ['claim_match.claims["sub"]'],
      ],
    ];
    for (const [claimMatch, expected] of cases) {
      const result = await h.api.create("identities", org(), { name: "bad", claimMatch });
      assert.equal(failed(result).code, 3, JSON.stringify(claimMatch));
      assert.deepEqual(fields(result), expected, JSON.stringify(claimMatch));
    }
  });

  it("rejects every static-keys violation with a field violation", async () => {
    const issuerKeys = await publicJwks();
    const base = { issuer: "https://keys.example.com", subject: "s", issuerKeys };
    const hmac = JSON.stringify({ keys: [{ kty: "oct", k: "c2VjcmV0" }] });
    const badAlg = JSON.stringify({
      keys: [{ ...JSON.parse(issuerKeys).keys[0], alg: "HS256" }],
    });
    const cases: [JsonObject, string[]][] = [
      [{ ...base, issuer: "" }, ["static_keys.issuer"]],
      [{ ...base, subject: "" }, ["static_keys.subject"]],
      [{ ...base, issuerKeys: "" }, ["static_keys.issuer_keys"]],
      [{ ...base, issuerKeys: "not json" }, ["static_keys.issuer_keys"]],
      [{ ...base, issuerKeys: await privateJwks() }, ["static_keys.issuer_keys"]],
      [{ ...base, issuerKeys: hmac }, ["static_keys.issuer_keys"]],
      [{ ...base, issuerKeys: badAlg }, ["static_keys.issuer_keys"]],
      [{ ...base, issuerKeys: await publicJwks(11) }, ["static_keys.issuer_keys"]],
      [{ ...base, issuerKeys: JSON.stringify({ keys: [] }) }, ["static_keys.issuer_keys"]],
      [{ ...base, audiences: ["a", "b"] }, ["static_keys.audiences"]],
      [
        { ...base, expirationTime: new Date(Date.now() - day).toISOString() },
        ["static_keys.expiration_time"],
      ],
      [
        { ...base, expirationTime: new Date(Date.now() + 366 * day).toISOString() },
        ["static_keys.expiration_time"],
      ],
      [{ ...base, expirationTime: "tomorrow" }, ["static_keys.expiration_time"]],
    ];
    for (const [staticKeys, expected] of cases) {
      const result = await h.api.create("identities", org(), { name: "bad", staticKeys });
      assert.equal(failed(result).code, 3, JSON.stringify(staticKeys));
      assert.deepEqual(fields(result), expected, JSON.stringify(staticKeys));
    }
    const both = await h.api.create("identities", org(), {
      name: "bad",
      staticKeys: base,
      claimMatch: { issuer: "https://a.example", subject: "s" },
    });
    assert.deepEqual(fields(both), ["static_keys"]);
  });

  it("updates within a kind, rotates keys, and refuses mixing kinds or a later expiration", async () => {
    const issuerKeys = await publicJwks();
    const created = ok(
      await h.api.create("identities", org(), {
        name: "rotating",
        staticKeys: { issuer: "https://keys.example.com", subject: "s", issuerKeys },
      }),
    );
    const rotated = await publicJwks();
    const updated = ok(
      await h.api.update(
        "identities",
        created.uid,
        { staticKeys: { issuerKeys: rotated } },
        "staticKeys.issuerKeys",
      ),
    );
    assert.equal(updated.staticKeys.issuerKeys, rotated);
    assert.equal(updated.staticKeys.issuer, "https://keys.example.com");
    assert.equal(updated.staticKeys.expirationTime, created.staticKeys.expirationTime);
    const mixed = await h.api.update(
      "identities",
      created.uid,
      { claimMatch: { issuer: "https://a.example", subject: "s" } },
      "claimMatch",
    );
    assert.deepEqual(fields(mixed), ["static_keys"]);
    const later = await h.api.update(
      "identities",
      created.uid,
      { staticKeys: { expirationTime: new Date(Date.now() + 400 * day).toISOString() } },
      "staticKeys.expirationTime",
    );
    assert.deepEqual(fields(later), ["static_keys.expiration_time"]);
    const privateKeys = await h.api.update(
      "identities",
      created.uid,
      { staticKeys: { issuerKeys: await privateJwks() } },
      "staticKeys.issuerKeys",
    );
    assert.deepEqual(fields(privateKeys), ["static_keys.issuer_keys"]);

    const cm = ok(
      await h.api.create("identities", org(), {
        name: "cm",
        claimMatch: { issuer: "https://a.example", subject: "s" },
      }),
    );
    const patterned = ok(
      await h.api.update(
        "identities",
        cm.uid,
        { claimMatch: { subject: "", subjectPattern: "s-[0-9]+", claims: { env: "prod" } } },
        "claimMatch.subject,claimMatch.subjectPattern,claimMatch.claims",
      ),
    );
    assert.equal(patterned.claimMatch.issuer, "https://a.example");
    assert.equal(patterned.claimMatch.subjectPattern, "s-[0-9]+");
    assert.deepEqual(patterned.claimMatch.claims, { env: "prod" });
    const email = await h.api.update("identities", cm.uid, { email: "x@example.com" }, "email");
    assert.equal(failed(email).code, 3);
  });
});
