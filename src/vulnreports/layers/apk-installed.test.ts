import assert from "node:assert/strict";
import { test } from "node:test";
import { parseApkInstalled } from "./apk-installed.ts";
import type { Distro } from "./os-release.ts";

const DB = `C:Q1abc=
P:musl
V:1.2.5-r0
A:x86_64
S:383152
L:MIT
o:musl
F:lib
R:ld-musl-x86_64.so.1
Z:Q1xyz=

P:ca-certificates-bundle
V:20240705-r0
A:x86_64
L:MPL-2.0 AND MIT
o:ca-certificates

P:no-version
A:noarch
`;

test("apk records become apk purls in the distro's namespace", () => {
  const db = parseApkInstalled(DB, "lib/apk/db/installed", { id: "wolfi", idLike: [] });
  assert.deepEqual(db.packages, [
    {
      name: "musl",
      version: "1.2.5-r0",
      purl: "pkg:apk/wolfi/musl@1.2.5-r0?arch=x86_64&distro=wolfi",
      ecosystem: "Wolfi",
      licence: "MIT",
      origin: "musl",
      source: "lib/apk/db/installed",
    },
    {
      name: "ca-certificates-bundle",
      version: "20240705-r0",
      purl: "pkg:apk/wolfi/ca-certificates-bundle@20240705-r0?arch=x86_64&distro=wolfi",
      ecosystem: "Wolfi",
      licence: "MPL-2.0 AND MIT",
      origin: "ca-certificates",
      source: "lib/apk/db/installed",
    },
  ]);
  assert.deepEqual(db.errors, ["lib/apk/db/installed: record at line 18 has no V: version"]);
});

test("without a known os-release ID the namespace is alpine; distro only names apk distributions", () => {
  const cases: [Distro | undefined, string][] = [
    [undefined, ""],
    [{ id: "alpine", versionId: "3.20.3", idLike: [] }, "&distro=alpine-3.20.3"],
    [
      { id: "postmarketos", versionId: "v24.06", idLike: ["alpine"] },
      "&distro=postmarketos-v24.06",
    ],
    [{ id: "debian", versionId: "12", idLike: [] }, ""],
  ];
  for (const [distro, qualifier] of cases) {
    const db = parseApkInstalled("P:busybox\nV:1.36.1-r29\nA:aarch64\n", "p", distro);
    assert.equal(db.packages[0].purl, `pkg:apk/alpine/busybox@1.36.1-r29?arch=aarch64${qualifier}`);
    assert.equal(db.packages[0].ecosystem, "Alpine");
  }
  const chainguard = parseApkInstalled("P:glibc\nV:2.40-r1\n", "p", {
    id: "chainguard",
    idLike: [],
  });
  assert.equal(chainguard.packages[0].purl, "pkg:apk/chainguard/glibc@2.40-r1?distro=chainguard");
  assert.equal(chainguard.packages[0].licence, undefined);
});

test("lines that are not X:value are errors, and the record still reads", () => {
  const db = parseApkInstalled("P:a\nnonsense\nV:1-r0\n\n\n", "db");
  assert.equal(db.packages.length, 1);
  assert.deepEqual(db.errors, ['db: line 2 is not a "X:value" line']);
});
