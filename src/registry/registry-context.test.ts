import assert from "node:assert/strict";
import { it } from "node:test";
import { isDigest } from "../store/blobs/index.ts";
import { isOrgName, isRegistryPath, isRepoName, isTagName } from "./registry-context.ts";

it("accepts OCI repository names and nothing else", () => {
  for (const name of ["a", "a/b", "a.b_c__d---e/f0", "0/1/2"]) assert.ok(isRepoName(name), name);
  for (const name of ["", "A", "a/", "/a", "a//b", "a..b", "a___b", "a-", "_a", "a b", "a:b"])
    assert.ok(!isRepoName(name), name);
});

it("accepts organisation names of one component and registry paths of two or more", () => {
  for (const name of ["acme", "a.b-c", "x0"]) assert.ok(isOrgName(name), name);
  for (const name of ["", "Acme", "a/b", "a".repeat(64), "a b"]) assert.ok(!isOrgName(name), name);
  for (const path of ["acme/app", "acme/team/app"]) assert.ok(isRegistryPath(path), path);
  for (const path of ["acme", "acme/", "../etc", `acme/${"a".repeat(251)}`])
    assert.ok(!isRegistryPath(path), path);
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
