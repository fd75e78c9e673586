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
    RubyGems: "rubygems",
  };
  for (const [ecosystem, name] of Object.entries(expected)) {
    assert.equal(schemeFor(ecosystem).value?.name, name, ecosystem);
  }
});

test("unknown ecosystems are refused by name, including near misses", () => {
  for (const ecosystem of ["", "pypi", "NPM", "DHI", "rubygems", "constructor", "__proto__"]) {
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
    gem: "rubygems",
    PyPI: "pep440",
  };
  for (const [type, name] of Object.entries(expected)) {
    assert.equal(schemeForPurlType(type).value?.name, name, type);
  }
  assert.match(schemeForPurlType("rpm").error ?? "", /no version rules for package URL type "rpm"/);
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

test("an installed Go package compares with OSV's versions, written without the v", () => {
  const go = schemeForPurlType("golang").value;
  assert.equal(go?.compareText("v0.10.0", "0.17.0").value, -1);
  assert.equal(go?.compareText("1.21.3", "1.21.3").value, 0);
  assert.equal(go?.compareText("1.22.0", "1.21.10").value, 1);
  assert.equal(versionSchemes.go.isValid("1.21.3"), false, "the strict go rules still want the v");
});

/**
 * crates.io orders by SemVer 2.0.0 precedence, as Cargo's semver crate does; these are the
 * cases where a text or numeric order would differ (SemVer 2.0.0 §11 and its examples).
 */
test("crates.io versions order by SemVer precedence", () => {
  const crates = schemeFor("crates.io").value;
  const ascending = [
    "0.9.9",
    "0.10.0",
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "1.2.0",
    "1.10.0",
  ];
  for (let i = 0; i + 1 < ascending.length; i++) {
    assert.equal(crates?.compareText(ascending[i], ascending[i + 1]).value, -1, ascending[i]);
    assert.equal(crates?.compareText(ascending[i + 1], ascending[i]).value, 1, ascending[i + 1]);
  }
  assert.equal(crates?.compareText("1.0.0+build.1", "1.0.0").value, 0, "build metadata ignored");
  for (const text of ["1.0", "01.0.0", "1.0.0-", "1.0.0-01"]) {
    assert.notEqual(crates?.parse(text).error, undefined, text);
  }
});
