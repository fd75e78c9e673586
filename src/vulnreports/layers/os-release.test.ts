import assert from "node:assert/strict";
import { test } from "node:test";
import { distroOf, parseOsRelease } from "./os-release.ts";

test("os-release values are read with their quotes removed", () => {
  assert.deepEqual(
    parseOsRelease('# c\nNAME="Ubuntu"\nID=ubuntu\nID_LIKE=debian\nVERSION_ID="24.04"\n'),
    { id: "ubuntu", versionId: "24.04", idLike: ["debian"] },
  );
  assert.deepEqual(parseOsRelease("ID='wolfi'\n"), { id: "wolfi", idLike: [] });
  assert.equal(parseOsRelease("NAME=x\n"), undefined);
});

test("etc/os-release wins over usr/lib/os-release", () => {
  const files = new Map([
    ["usr/lib/os-release", Buffer.from("ID=debian\n")],
    ["etc/os-release", Buffer.from("ID=alpine\n")],
  ]);
  assert.equal(distroOf(files)?.id, "alpine");
  files.delete("etc/os-release");
  assert.equal(distroOf(files)?.id, "debian");
  assert.equal(distroOf(new Map()), undefined);
});
