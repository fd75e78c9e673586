import assert from "node:assert/strict";
import { test } from "node:test";
import { diffPackages, type ImagePackage, packageKey } from "./package-diff.ts";

const npm = (name: string, version: string): ImagePackage => ({
  name,
  version,
  purl: `pkg:npm/${name.replace("@", "%40")}@${version}`,
  ecosystem: "npm",
});

test("a package is known by its purl without version, qualifiers and subpath", () => {
  const p = {
    name: "openssl",
    version: "3.1.0-r0",
    purl: "pkg:apk/wolfi/openssl@3.1.0-r0?arch=x86_64&distro=wolfi-20240101#sub",
    ecosystem: "apk",
  };
  assert.equal(packageKey(p), "pkg:apk/wolfi/openssl");
  assert.equal(packageKey(npm("@scope/lib", "1.0.0")), "pkg:npm/%40scope/lib");
  assert.equal(packageKey({ name: "tool", version: "1", purl: "", ecosystem: "" }), ":tool");
});

test("a qualifier change alone is no change; a version change is", () => {
  const a = {
    name: "zlib",
    version: "1.3-r0",
    purl: "pkg:apk/wolfi/zlib@1.3-r0?distro=a",
    ecosystem: "apk",
  };
  const b = { ...a, purl: "pkg:apk/wolfi/zlib@1.3-r0?distro=b" };
  assert.deepEqual(diffPackages([a], [b]), { added: [], removed: [], changed: [] });
  const c = { ...a, version: "1.3.1-r0", purl: "pkg:apk/wolfi/zlib@1.3.1-r0" };
  assert.deepEqual(diffPackages([a], [c]).changed, [
    { name: "zlib", ecosystem: "apk", purl: c.purl, fromVersion: "1.3-r0", toVersion: "1.3.1-r0" },
  ]);
});

test("copies in several versions: common versions cancel, the rest pair in order", () => {
  const diff = diffPackages(
    [npm("lib", "1.0.0"), npm("lib", "2.0.0"), npm("lib", "3.0.0")],
    [npm("lib", "2.0.0"), npm("lib", "1.1.0")],
  );
  const short = (l: { fromVersion: string; toVersion: string }[]) =>
    l.map((p) => `${p.fromVersion}>${p.toVersion}`);
  assert.deepEqual(short(diff.changed), ["1.0.0>1.1.0"]);
  assert.deepEqual(short(diff.removed), ["3.0.0>"]);
  assert.deepEqual(diff.added, []);
});

test("the same name in two ecosystems is two packages", () => {
  const diff = diffPackages(
    [npm("yaml", "1.0.0")],
    [{ name: "yaml", version: "6.0", purl: "pkg:pypi/yaml@6.0", ecosystem: "pypi" }],
  );
  assert.deepEqual(
    [diff.added.map((p) => p.ecosystem), diff.removed.map((p) => p.ecosystem)],
    [["pypi"], ["npm"]],
  );
});
