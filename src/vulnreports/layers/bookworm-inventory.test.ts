import assert from "node:assert/strict";
import { test } from "node:test";
import { PackageURL } from "packageurl-js";
import { rootfsEntries } from "../../../test/support/fixture-rootfs.ts";
import { layer, layersOf } from "../../../test/support/tar-layers.ts";
import { scanImagePackages } from "./scan-image-packages.ts";

const DIST = "usr/lib/python3/dist-packages";
const DEB = "pkg:deb/debian";
const Q = "distro=debian-12";

/** What is installed in the fixture, and at which path each is recorded (ORIGIN.md). */
const EXPECTED: [purl: string, source: string][] = [
  [`${DEB}/base-files@12.4+deb12u11?arch=amd64&${Q}`, "var/lib/dpkg/status"],
  [`${DEB}/libc6@2.36-9+deb12u14?arch=amd64&${Q}&upstream=glibc`, "var/lib/dpkg/status"],
  [
    `${DEB}/login@4.13+dfsg1-1+deb12u1?arch=amd64&${Q}&epoch=1&upstream=shadow`,
    "var/lib/dpkg/status",
  ],
  [`${DEB}/perl-base@5.36.0-7+deb12u4?arch=amd64&${Q}&upstream=perl`, "var/lib/dpkg/status"],
  [
    `${DEB}/python3-cryptography@38.0.4-3+deb12u1?arch=amd64&${Q}&upstream=python-cryptography`,
    "var/lib/dpkg/status",
  ],
  [
    `${DEB}/python3-cupshelpers@1.5.18-1?arch=all&${Q}&upstream=system-config-printer`,
    "var/lib/dpkg/status",
  ],
  [`${DEB}/python3-pygments@2.14.0+dfsg-1?arch=all&${Q}&upstream=pygments`, "var/lib/dpkg/status"],
  [`${DEB}/python3-yaml@6.0-3+b2?arch=amd64&${Q}&upstream=pyyaml`, "var/lib/dpkg/status"],
  [
    "pkg:maven/com.google.guava/guava@31.1-jre",
    "opt/app/webapp.war!/WEB-INF/lib/guava-31.1-jre.jar",
  ],
  ["pkg:maven/commons-io/commons-io@2.11.0", "opt/app/lib/commons-io-2.11.0.jar"],
  ["pkg:maven/org.apache.commons/commons-lang3@3.12.0", "opt/app/lib/commons-lang3-3.12.0.jar"],
  ["pkg:maven/org.slf4j/slf4j-api@1.7.32", "opt/app/lib/slf4j-api-1.7.32.jar"],
  ["pkg:npm/hooks-app@1.0.0", "app/package.json"],
  ["pkg:npm/packageurl-js@2.0.1", "app/node_modules/packageurl-js/package.json"],
  ["pkg:npm/packageurl-js@2.0.1", "opt/tool/node_modules/packageurl-js/package.json"],
  ["pkg:pypi/cryptography@38.0.4", `${DIST}/cryptography.egg-info/PKG-INFO`],
  ["pkg:pypi/cupshelpers@1.0", `${DIST}/cupshelpers-1.0-py3.10.egg-info`],
  ["pkg:pypi/greet-lading@1.2.0", "app/deps/greet_lading-1.2.0.dist-info/METADATA"],
  ["pkg:pypi/pip@23.2.1", "opt/venv/lib/python3.11/site-packages/pip-23.2.1.dist-info/METADATA"],
  ["pkg:pypi/pygments@2.14.0", `${DIST}/Pygments-2.14.0.egg-info/PKG-INFO`],
  ["pkg:pypi/pyyaml@6.0", `${DIST}/PyYAML-6.0.dist-info/METADATA`],
];

test("a Debian image of real files: every installed package at every path, nothing else", async () => {
  const result = await scanImagePackages(
    layersOf(await layer(await rootfsEntries("bookworm-inventory"))),
  );
  assert.deepEqual(result.errors, []);
  assert.deepEqual(result.distro, { id: "debian", versionId: "12", idLike: [] });
  const found = result.packages.map((p) => `${p.purl} ${p.source}`);
  const expected = EXPECTED.map(([purl, source]) => `${purl} ${source}`);
  const missed = expected.filter((e) => !found.includes(e));
  const extra = found.filter((f) => !expected.includes(f));
  // Recall and precision, each 100 %: the lists name what is missing and what is invented.
  assert.deepEqual(missed, [], "recall: installed packages not listed");
  assert.deepEqual(extra, [], "precision: listed packages that are not installed");
  for (const { purl } of result.packages) {
    assert.equal(PackageURL.fromString(purl).toString(), purl, "each purl is canonical");
  }
});
