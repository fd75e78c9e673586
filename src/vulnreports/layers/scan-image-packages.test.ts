import assert from "node:assert/strict";
import { test } from "node:test";
import { layer, layersOf, OCI_TAR, OCI_ZSTD } from "../../../test/support/tar-layers.ts";
import { scanImagePackages } from "./scan-image-packages.ts";

const APK_DB = "P:musl\nV:1.2.5-r0\nA:x86_64\nL:MIT\no:musl\n\nP:zlib\nV:1.3.1-r1\nA:x86_64\n";
const DPKG_STATUS =
  "Package: libc6\nStatus: install ok installed\nArchitecture: amd64\nSource: glibc\nVersion: 2.36-9+deb12u7\n\n" +
  "Package: login\nStatus: install ok installed\nArchitecture: amd64\nVersion: 1:4.13+dfsg1-1+b1\n";
const SITE = "usr/lib/python3.12/site-packages";

test("three layers: apk, dpkg and language packages come out as exactly these purls", async () => {
  const result = await scanImagePackages(
    layersOf(
      await layer([
        { name: "etc/", type: "directory" },
        { name: "etc/os-release", content: 'ID=wolfi\nVERSION_ID="20230201"\n' },
        { name: "lib/apk/db/installed", content: APK_DB },
      ]),
      await layer(
        [
          { name: "var/lib/dpkg/status", content: DPKG_STATUS },
          {
            name: "var/lib/dpkg/status.d/tzdata",
            content: "Package: tzdata\nVersion: 2024a-0+deb12u1\nArchitecture: all\n",
          },
          {
            name: "var/lib/dpkg/status.d/tzdata.md5sums",
            content: "abc  usr/share/zoneinfo/UTC\n",
          },
        ],
        OCI_ZSTD,
      ),
      await layer(
        [
          {
            name: `${SITE}/Requests-2.32.3.dist-info/METADATA`,
            content:
              "Metadata-Version: 2.1\nName: Requests\nVersion: 2.32.3\nLicense: Apache-2.0\n",
          },
          {
            name: "app/node_modules/@types/node/package.json",
            content: '{"name":"@types/node","version":"24.0.0","license":"MIT"}',
          },
          // The same package at two paths is listed at each.
          {
            name: "app/node_modules/x/node_modules/@types/node/package.json",
            content: '{"name":"@types/node","version":"24.0.0","license":"MIT"}',
          },
        ],
        OCI_TAR,
      ),
    ),
  );
  assert.deepEqual(
    result.packages.map((p) => p.purl),
    [
      "pkg:apk/wolfi/musl@1.2.5-r0?arch=x86_64&distro=wolfi-20230201",
      "pkg:apk/wolfi/zlib@1.3.1-r1?arch=x86_64&distro=wolfi-20230201",
      "pkg:deb/debian/libc6@2.36-9+deb12u7?arch=amd64&upstream=glibc",
      "pkg:deb/debian/login@4.13+dfsg1-1+b1?arch=amd64&epoch=1",
      "pkg:deb/debian/tzdata@2024a-0+deb12u1?arch=all",
      "pkg:npm/%40types/node@24.0.0",
      "pkg:npm/%40types/node@24.0.0",
      "pkg:pypi/requests@2.32.3",
    ],
  );
  assert.deepEqual(result.distro, { id: "wolfi", versionId: "20230201", idLike: [] });
  assert.deepEqual(result.skipped, []);
  assert.deepEqual(result.errors, []);
  const npm = result.packages.find((p) => p.ecosystem === "npm");
  assert.equal(npm?.source, "app/node_modules/@types/node/package.json");
});

test("a package database deleted by an upper layer contributes nothing", async () => {
  const result = await scanImagePackages(
    layersOf(
      await layer([
        { name: "usr/lib/os-release", content: "ID=debian\n" },
        { name: "var/lib/dpkg/status", content: DPKG_STATUS },
        {
          name: `${SITE}/six-1.16.0.dist-info/METADATA`,
          content: "Name: six\nVersion: 1.16.0\n",
        },
      ]),
      await layer([
        { name: "var/lib/dpkg/.wh.status", content: "" },
        { name: `${SITE}/.wh.six-1.16.0.dist-info`, content: "" },
      ]),
    ),
  );
  assert.deepEqual(result.packages, []);
  assert.equal(result.distro?.id, "debian");
});

test("an image without os-release has no distro and the apk namespace falls back to alpine", async () => {
  const result = await scanImagePackages(
    layersOf(await layer([{ name: "lib/apk/db/installed", content: APK_DB }])),
  );
  assert.equal(result.distro, undefined);
  assert.equal(result.packages[0].purl, "pkg:apk/alpine/musl@1.2.5-r0?arch=x86_64");
});

test("parser errors and oversized databases are reported alongside the packages", async () => {
  const result = await scanImagePackages(
    layersOf(
      await layer([
        { name: "app/node_modules/broken/package.json", content: "{" },
        { name: "var/lib/dpkg/status", content: "x".repeat(2000) },
      ]),
    ),
    { maxFileBytes: 1000 },
  );
  assert.deepEqual(result.packages, []);
  assert.match(result.errors[0], /^app\/node_modules\/broken\/package.json: not JSON/);
  assert.deepEqual(result.skipped, [
    { path: "var/lib/dpkg/status", reason: "2000 bytes, more than the 1000-byte limit per file" },
  ]);
});
