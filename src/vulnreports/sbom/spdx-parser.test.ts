import assert from "node:assert/strict";
import { test } from "node:test";
import { sbomFixtureJson, wolfiPackages } from "../../../test/support/sbom-fixtures.ts";
import { MAX_SBOM_PACKAGES } from "./sbom-package.ts";
import { parseSpdx } from "./spdx-parser.ts";

const doc = (packages: unknown[], extra: Record<string, unknown> = {}) => ({
  spdxVersion: "SPDX-2.3",
  SPDXID: "SPDXRef-DOCUMENT",
  packages,
  ...extra,
});

const withPurl = (name: string, purl: string, extra: Record<string, unknown> = {}) => ({
  SPDXID: `SPDXRef-${name}`,
  name,
  versionInfo: "1.0",
  externalRefs: [
    { referenceCategory: "PACKAGE-MANAGER", referenceType: "purl", referenceLocator: purl },
  ],
  ...extra,
});

test("a Wolfi image SBOM reads into its apk packages, without the image itself", () => {
  const result = parseSpdx(sbomFixtureJson("wolfi-image.spdx.json"));
  assert.equal(result.error, undefined);
  assert.equal(result.value?.format, "spdx-2.3");
  assert.deepEqual(result.value?.packages, wolfiPackages);
  assert.deepEqual(result.value?.notes, []);
});

test("SPDX 2.2 is read, with a note that says so", () => {
  const result = parseSpdx(
    doc([withPurl("zlib", "pkg:apk/alpine/zlib@1.3.1-r1")], { spdxVersion: "SPDX-2.2" }),
  );
  assert.equal(result.value?.format, "spdx-2.2");
  assert.deepEqual(result.value?.notes, ["SPDX-2.2 was read as SPDX-2.3"]);
  assert.equal(result.value?.packages[0].ecosystem, "apk");
});

test("other SPDX versions and non-documents are refused with the reason", () => {
  assert.deepEqual(parseSpdx(sbomFixtureJson("spdx-2.1.spdx.json")), {
    error: 'spdxVersion "SPDX-2.1" is not one Lading reads (SPDX-2.2, SPDX-2.3)',
  });
  assert.deepEqual(parseSpdx([]), { error: "an SPDX document must be a JSON object" });
  assert.deepEqual(parseSpdx({ packages: [] }), {
    error: "spdxVersion is missing; not an SPDX document",
  });
  assert.deepEqual(parseSpdx(doc("x" as unknown as unknown[])), {
    error: "packages must be a list",
  });
});

test("a described package is kept when it has a real purl, dropped when it is an image", () => {
  const described = (purl: string) =>
    parseSpdx(
      doc([withPurl("lib", purl)], {
        relationships: [
          {
            spdxElementId: "SPDXRef-lib",
            relationshipType: "DESCRIBED_BY",
            relatedSpdxElement: "SPDXRef-DOCUMENT",
          },
        ],
      }),
    ).value?.packages.map((p) => p.name);
  assert.deepEqual(described("pkg:pypi/lib@1.0"), ["lib"]);
  assert.deepEqual(described("pkg:oci/lib@sha256%3Aabc"), []);
});

test("entries without a name or with an unreadable purl are noted, not fatal", () => {
  const result = parseSpdx(
    doc([
      "junk",
      { SPDXID: "SPDXRef-x", versionInfo: "1" },
      withPurl("odd", "pkg:"),
      withPurl("", "pkg:npm/from-purl@2.0.0", { versionInfo: undefined }),
    ]),
  );
  assert.deepEqual(result.value?.packages, [
    { name: "odd", version: "1.0", purl: "", ecosystem: "", licence: "" },
    {
      name: "from-purl",
      version: "2.0.0",
      purl: "pkg:npm/from-purl@2.0.0",
      ecosystem: "npm",
      licence: "",
    },
  ]);
  assert.deepEqual(result.value?.notes, [
    "packages[0] is not an object, so it was skipped",
    "packages[1] has no name, so it was skipped",
    'packages[2]: "pkg:" is not a package URL, so it was dropped',
  ]);
});

test("only package-manager purl references give the purl", () => {
  const result = parseSpdx(
    doc([
      {
        name: "x",
        externalRefs: [
          {
            referenceCategory: "OTHER",
            referenceType: "purl",
            referenceLocator: "pkg:npm/other@1",
          },
          {
            referenceCategory: "package_manager",
            referenceType: "purl",
            referenceLocator: "pkg:npm/x@2",
          },
        ],
      },
    ]),
  );
  assert.equal(result.value?.packages[0].purl, "pkg:npm/x@2");
});

test("more packages than allowed are refused before any is read", () => {
  const packages = new Array(MAX_SBOM_PACKAGES + 1).fill({ name: "x" });
  assert.equal(
    parseSpdx(doc(packages)).error,
    `${MAX_SBOM_PACKAGES + 1} packages is more than the ${MAX_SBOM_PACKAGES} allowed`,
  );
});
