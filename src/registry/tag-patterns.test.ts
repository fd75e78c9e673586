import assert from "node:assert/strict";
import { it } from "node:test";
import { parseTagPattern, tagMatches } from "./tag-patterns.ts";

it("matches whole tag names with * and ?, and dots literally", () => {
  assert.ok(tagMatches("v*", "v1.2.3"));
  assert.ok(tagMatches("v*", "v"));
  assert.ok(!tagMatches("v*", "dev"));
  assert.ok(tagMatches("1.2.*", "1.2.0"));
  assert.ok(!tagMatches("1.2.*", "1x2y0"));
  assert.ok(!tagMatches("1.2.*", "1.20"));
  assert.ok(tagMatches("rc-?", "rc-1"));
  assert.ok(!tagMatches("rc-?", "rc-10"));
  assert.ok(tagMatches("latest", "latest"));
  assert.ok(!tagMatches("latest", "latest2"));
});

it("refuses what is not a tag glob", () => {
  for (const bad of ["", "v[0-9]", "a|b", "(v)", "x".repeat(129), "v+", "a/b"]) {
    assert.ok(parseTagPattern(bad).error, bad);
  }
  assert.equal(parseTagPattern("*".repeat(128)).error, undefined);
  assert.ok(!tagMatches("v[", "v["));
});
