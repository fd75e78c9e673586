import assert from "node:assert/strict";
import { test } from "node:test";
import { mixedAppPackages, sbomFixtureJson } from "../../../test/support/sbom-fixtures.ts";
import { parseCycloneDx } from "./cyclonedx-parser.ts";
import { MAX_SBOM_PACKAGES } from "./sbom-package.ts";

const bom = (components: unknown, specVersion = "1.5") => ({
  bomFormat: "CycloneDX",
  specVersion,
  components,
});

test("a 1.5 BOM reads Python, npm, Maven and Go components, nested ones after their parent", () => {
  const result = parseCycloneDx(sbomFixtureJson("mixed-app.cdx-1.5.json"));
  assert.equal(result.error, undefined);
  assert.equal(result.value?.format, "cyclonedx-1.5");
  assert.deepEqual(result.value?.packages, mixedAppPackages);
  assert.deepEqual(result.value?.notes, []);
});

test("a 1.6 BOM reads deb packages and keeps the purl-less OS component", () => {
  const result = parseCycloneDx(sbomFixtureJson("debian-tools.cdx-1.6.json"));
  assert.equal(result.value?.format, "cyclonedx-1.6");
  assert.deepEqual(result.value?.packages, [
    { name: "debian", version: "12.8", purl: "", ecosystem: "", licence: "" },
    {
      name: "curl",
      version: "7.88.1-10+deb12u8",
      purl: "pkg:deb/debian/curl@7.88.1-10%2Bdeb12u8?arch=amd64&distro=debian-12.8",
      ecosystem: "deb",
      licence: "curl",
    },
    {
      name: "libssl3",
      version: "3.0.15-1~deb12u1",
      purl: "pkg:deb/debian/libssl3@3.0.15-1~deb12u1?arch=amd64&distro=debian-12.8",
      ecosystem: "deb",
      licence: "Apache-2.0",
    },
  ]);
});

test("a 1.4 BOM takes a missing version from the purl and notes what it could not read", () => {
  const result = parseCycloneDx(sbomFixtureJson("node-app.cdx-1.4.json"));
  assert.equal(result.value?.format, "cyclonedx-1.4");
  assert.deepEqual(result.value?.packages, [
    {
      name: "lodash",
      version: "4.17.21",
      purl: "pkg:npm/lodash@4.17.21",
      ecosystem: "npm",
      licence: "MIT",
    },
    {
      name: "left-pad",
      version: "1.3.0",
      purl: "pkg:npm/left-pad@1.3.0",
      ecosystem: "npm",
      licence: "",
    },
    { name: "broken-ref", version: "0.0.1", purl: "", ecosystem: "", licence: "" },
  ]);
  assert.deepEqual(result.value?.notes, [
    'components[2]: "not a purl" is not a package URL, so it was dropped',
    "components[3] has no name, so it was skipped",
  ]);
});

test("spec versions other than 1.4 to 1.6 are refused with the reason", () => {
  assert.deepEqual(parseCycloneDx(sbomFixtureJson("old.cdx-1.2.json")), {
    error: 'CycloneDX specVersion "1.2" is not one Lading reads (1.4, 1.5, 1.6)',
  });
  assert.deepEqual(parseCycloneDx(bom([], "2.0")), {
    error: 'CycloneDX specVersion "2.0" is not one Lading reads (1.4, 1.5, 1.6)',
  });
  assert.deepEqual(parseCycloneDx({ bomFormat: "SPDX" }), {
    error: 'bomFormat "SPDX" is not CycloneDX',
  });
  assert.deepEqual(parseCycloneDx(bom({})), { error: "components must be a list" });
});

test("a BOM without components has no packages", () => {
  assert.deepEqual(
    parseCycloneDx({ bomFormat: "CycloneDX", specVersion: "1.6" }).value?.packages,
    [],
  );
});

test("nested components that are not a list are noted and their parent kept", () => {
  const result = parseCycloneDx(bom([{ name: "a", components: "b" }]));
  assert.deepEqual(
    result.value?.packages.map((p) => p.name),
    ["a"],
  );
  assert.deepEqual(result.value?.notes, [
    "components[0].components is not a list, so it was skipped",
  ]);
});

test("more components than allowed, counting nested ones, are refused", () => {
  const half = MAX_SBOM_PACKAGES / 2 + 1;
  const leaf = { name: "x" };
  const components = new Array(half).fill({ name: "p", components: [leaf] });
  // assert.equal on the error alone: a deepEqual diff of 200,000 packages would take minutes.
  assert.equal(
    parseCycloneDx(bom(components)).error,
    `more than the ${MAX_SBOM_PACKAGES} components allowed`,
  );
  assert.equal(parseCycloneDx(bom(components.slice(1))).value?.packages.length, MAX_SBOM_PACKAGES);
});

test("deep nesting is walked without recursion", () => {
  let component: Record<string, unknown> = { name: "leaf" };
  for (let i = 0; i < 20_000; i++) component = { name: `n${i}`, components: [component] };
  const result = parseCycloneDx(bom([component]));
  assert.equal(result.value?.packages.length, 20_001);
  assert.equal(result.value?.packages.at(-1)?.name, "leaf");
});
