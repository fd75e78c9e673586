import assert from "node:assert/strict";
import { test } from "node:test";
import { ancestorsOf, layerEntryKind, normaliseLayerPath } from "./layer-path.ts";

test("entry names normalise to image paths", () => {
  assert.equal(normaliseLayerPath("./etc/os-release"), "etc/os-release");
  assert.equal(normaliseLayerPath("/etc/os-release"), "etc/os-release");
  assert.equal(normaliseLayerPath("etc//apk/./db/"), "etc/apk/db");
  assert.equal(normaliseLayerPath("./"), undefined);
  assert.equal(normaliseLayerPath(""), undefined);
});

test("any `..` segment rejects the entry", () => {
  assert.equal(normaliseLayerPath("../etc/passwd"), undefined);
  assert.equal(normaliseLayerPath("usr/../../etc/passwd"), undefined);
  assert.equal(normaliseLayerPath("usr/lib/.."), undefined);
  assert.equal(normaliseLayerPath("usr/lib/..hidden"), "usr/lib/..hidden");
});

test("whiteouts, opaque markers and reserved names are told apart", () => {
  assert.deepEqual(layerEntryKind("var/lib/dpkg/status"), {
    kind: "path",
    path: "var/lib/dpkg/status",
  });
  assert.deepEqual(layerEntryKind("var/lib/dpkg/.wh.status"), {
    kind: "whiteout",
    path: "var/lib/dpkg/status",
  });
  assert.deepEqual(layerEntryKind(".wh.etc"), { kind: "whiteout", path: "etc" });
  assert.deepEqual(layerEntryKind("usr/lib/.wh..wh..opq"), { kind: "opaque", dir: "usr/lib" });
  assert.deepEqual(layerEntryKind(".wh..wh..opq"), { kind: "opaque", dir: "" });
  assert.deepEqual(layerEntryKind("x/.wh..wh.plnk"), { kind: "reserved" });
  assert.deepEqual(layerEntryKind("x/.wh."), { kind: "reserved" });
});

test("ancestors run nearest first and end at the root", () => {
  assert.deepEqual([...ancestorsOf("a/b/c")], ["a/b", "a", ""]);
  assert.deepEqual([...ancestorsOf("a")], [""]);
});
