import assert from "node:assert/strict";
import { test } from "node:test";
import { createOutboundGuard } from "../outbound/index.ts";
import {
  claimEquals,
  claimMatchProblems,
  isIssuerUrl,
  issuerProblem,
  matchesExactOrPattern,
  unmatchedClaim,
} from "./claim-match.ts";
import { issuerKeysProblem } from "./static-keys.ts";

const strict = createOutboundGuard();

test("patterns match whole values only, and an exact value wins over a pattern", () => {
  assert.equal(
    matchesExactOrPattern("https://a.example/x", "", "https://a\\.example/[a-z]+"),
    true,
  );
  assert.equal(
    matchesExactOrPattern("https://a.example/x.evil", "", "https://a\\.example/[a-z]+"),
    false,
  );
  assert.equal(
    matchesExactOrPattern("xhttps://a.example/x", "", "https://a\\.example/[a-z]+"),
    false,
  );
  assert.equal(matchesExactOrPattern("b", "", "a|b"), true);
  assert.equal(matchesExactOrPattern("ab", "", "a|b"), false);
  assert.equal(matchesExactOrPattern("s", "s", "x"), true);
  assert.equal(matchesExactOrPattern("s", "", ""), false);
  assert.equal(matchesExactOrPattern("s", "", "("), false);
});

test("an exponential JavaScript pattern answers at once, and RE2-only syntax is enforced", () => {
  const started = performance.now();
  assert.equal(matchesExactOrPattern(`https://${"a".repeat(34)}!`, "", "https://(a+)+$"), false);
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 500, `took ${elapsed.toFixed(0)} ms`);
  assert.equal(matchesExactOrPattern("ab", "", "a(?=b)b"), false);
  const match = {
    issuer: "",
    subject: "",
    issuerPattern: "https://(a)\\1",
    subjectPattern: "ci-(?!x).*",
    audience: "",
    claims: {},
  };
  const problems = claimMatchProblems(match, strict);
  assert.deepEqual(
    problems.map(([field]) => field),
    ["issuer_pattern", "subject_pattern"],
  );
  for (const [, description] of problems) assert.match(description, /must be an RE2 regular/);
  assert.match(problems[0][1], /backreference/);
  assert.match(problems[1][1], /lookahead/);
  assert.deepEqual(
    claimMatchProblems(
      { ...match, issuerPattern: "https://(a+)+$", subjectPattern: "ci-.*" },
      strict,
    ),
    [],
  );
});

test("claims compare strings as they are and other JSON values by their JSON form", () => {
  assert.equal(claimEquals("acme", "acme"), true);
  assert.equal(claimEquals(2, "2"), true);
  assert.equal(claimEquals(true, "true"), true);
  assert.equal(claimEquals(["a"], '["a"]'), true);
  assert.equal(claimEquals(undefined, ""), false);
  assert.equal(claimEquals(null, "null"), true);
  const match = { issuer: "i", subject: "s", claims: { a: "1", b: "x" } };
  assert.equal(unmatchedClaim(match, { a: 1, b: "x" }), undefined);
  assert.equal(unmatchedClaim(match, { a: 1 }), "b");
});

test("only https issuers, or http on loopback, without query, fragment or credentials", () => {
  assert.equal(isIssuerUrl("https://token.example.com"), true);
  assert.equal(isIssuerUrl("http://127.0.0.1:8080"), true);
  assert.equal(isIssuerUrl("http://token.example.com"), false);
  assert.equal(isIssuerUrl("https://token.example.com?x=1"), false);
  assert.equal(isIssuerUrl("https://user:pw@token.example.com"), false);
});

test("an issuer on an internal address is refused unless the operator allows it", () => {
  const loopback = createOutboundGuard({ allow: { hosts: [], cidrs: ["127.0.0.1/32"] } });
  for (const issuer of [
    "http://127.0.0.1:8080/internal/admin",
    "https://127.1",
    "https://2130706433",
    "https://0x7f000001",
    "https://0.0.0.0",
    "https://[::ffff:127.0.0.1]",
    "https://localhost:9",
    "https://169.254.169.254",
    "https://[fd00::1]",
  ]) {
    assert.match(
      issuerProblem(issuer, strict) ?? "",
      /internal address .*--outbound-allow/,
      issuer,
    );
  }
  assert.equal(issuerProblem("http://127.0.0.1:8080/realms/x", loopback), undefined);
  assert.equal(issuerProblem("https://token.example.com", strict), undefined);
  assert.match(issuerProblem("http://token.example.com", loopback) ?? "", /https URL/);
  const [[field, description]] = claimMatchProblems(
    {
      issuer: "http://127.0.0.1:5432",
      subject: "s",
      issuerPattern: "",
      subjectPattern: "",
      audience: "",
      claims: {},
    },
    strict,
  );
  assert.equal(field, "issuer");
  assert.match(description, /internal address \(loopback\)/);
});

test("issuer keys must be 1 to 10 public asymmetric keys", () => {
  const ec = { kty: "EC", crv: "P-256", x: "x", y: "y" };
  assert.equal(issuerKeysProblem(JSON.stringify({ keys: [ec] })), undefined);
  assert.match(issuerKeysProblem(JSON.stringify({ keys: [{ ...ec, d: "d" }] })) ?? "", /public/);
  assert.match(
    issuerKeysProblem(JSON.stringify({ keys: [{ kty: "oct", k: "a" }] })) ?? "",
    /public/,
  );
  assert.match(issuerKeysProblem(JSON.stringify({ keys: [{ ...ec, crv: "P-192" }] })) ?? "", /crv/);
  assert.match(
    issuerKeysProblem(JSON.stringify({ keys: [{ kty: "RSA", n: "AQAB", e: "AQAB" }] })) ?? "",
    /2048/,
  );
  assert.match(issuerKeysProblem(JSON.stringify({ keys: [{ ...ec, use: "enc" }] })) ?? "", /use/);
  assert.match(issuerKeysProblem("[]") ?? "", /1 to 10/);
});
