import assert from "node:assert/strict";
import { test } from "node:test";
import { schemeFor, schemeForPurlType, versionSchemes } from "./scheme-registry.ts";

test("OSV ecosystems map to their rules, release suffixes ignored", () => {
  const expected: Record<string, string> = {
    Alpine: "apk",
    "Alpine:v3.20": "apk",
    Wolfi: "apk",
    Chainguard: "apk",
    Debian: "debian",
    "Debian:12": "debian",
    Ubuntu: "debian",
    "Ubuntu:22.04:LTS": "debian",
    PyPI: "pep440",
    npm: "semver",
    "crates.io": "semver",
    Maven: "maven",
    Go: "go",
  };
  for (const [ecosystem, name] of Object.entries(expected)) {
    assert.equal(schemeFor(ecosystem).value?.name, name, ecosystem);
  }
});

test("unknown ecosystems are refused by name, including near misses", () => {
  for (const ecosystem of ["", "pypi", "NPM", "DHI", "RubyGems", "constructor", "__proto__"]) {
    assert.match(schemeFor(ecosystem).error ?? "", /no version rules for OSV ecosystem/, ecosystem);
  }
});

test("package URL types map to their rules, case-insensitively", () => {
  const expected: Record<string, string> = {
    apk: "apk",
    deb: "debian",
    pypi: "pep440",
    npm: "semver",
    cargo: "semver",
    maven: "maven",
    golang: "go",
    PyPI: "pep440",
  };
  for (const [type, name] of Object.entries(expected)) {
    assert.equal(schemeForPurlType(type).value?.name, name, type);
  }
  assert.match(schemeForPurlType("gem").error ?? "", /no version rules for package URL type "gem"/);
  assert.match(schemeForPurlType("toString").error ?? "", /no version rules/);
});

test("every scheme answers the shared interface", () => {
  for (const [name, scheme] of Object.entries(versionSchemes)) {
    assert.equal(scheme.name, name);
    assert.equal(scheme.isValid(""), false, `${name} refuses the empty string`);
    const refused = scheme.compareText("", "1");
    assert.match(refused.error ?? "", new RegExp(`^invalid ${name} version "": empty`));
  }
});
