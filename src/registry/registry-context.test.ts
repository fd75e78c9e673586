import assert from "node:assert/strict";
import { it } from "node:test";
import { isDigest, isRepoName, isTagName } from "./registry-context.ts";

it("accepts OCI repository names and nothing else", () => {
  for (const name of ["a", "a/b", "a.b_c__d---e/f0", "0/1/2"]) assert.ok(isRepoName(name), name);
  for (const name of ["", "A", "a/", "/a", "a//b", "a..b", "a___b", "a-", "_a", "a b", "a:b"])
    assert.ok(!isRepoName(name), name);
});

it("accepts OCI tag names of up to 128 characters", () => {
  for (const name of ["latest", "v1.2.3", "_x", "A-b_c.d", "a".repeat(128)])
    assert.ok(isTagName(name));
  for (const name of ["", ".x", "-x", "a/b", "a".repeat(129), "a:b"]) assert.ok(!isTagName(name));
});

it("accepts lowercase sha256 and sha512 digests", () => {
  assert.ok(isDigest(`sha256:${"a".repeat(64)}`));
  assert.ok(isDigest(`sha512:${"0".repeat(128)}`));
  for (const d of [
    `sha256:${"A".repeat(64)}`,
    `sha256:${"a".repeat(63)}`,
    `md5:${"a".repeat(32)}`,
    "",
  ])
    assert.ok(!isDigest(d), d);
});
