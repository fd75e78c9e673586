import assert from "node:assert/strict";
import { test } from "node:test";
import { parseRubyGemsVersion, rubyGemsScheme } from "./rubygems-version.ts";

/**
 * Pairs and what `Gem::Version.new(a) <=> Gem::Version.new(b)` and `#prerelease?` answered for
 * them under Ruby 3 (RubyGems 3), run once when the table was written.
 */
const ORDER: [string, string, -1 | 0 | 1, boolean][] = [
  ["1.0.0.pre", "1.0.0", -1, true],
  ["1.0.0", "1", 0, false],
  ["1.0.0.pre.1", "1.0.0.pre", 1, true],
  ["1.0-rc1", "1.0.rc1", -1, true],
  ["1.0-rc1", "1.0.pre.rc1", 0, true],
  ["1.0.a", "1.0", -1, true],
  ["1.a", "1.0.1", -1, true],
  ["1.0.0.1", "1.0.0.a", 1, false],
  ["1.0.0a1", "1.0.0.a.1", 0, true],
  ["1.0.0.beta", "1.0.0.alpha", 1, true],
  ["1.0.0.RC1", "1.0.0.beta", -1, true],
  ["1.0.0.rc1", "1.0.0.beta", 1, true],
  ["2.0.0.rc1", "2.0.0", -1, true],
  ["1.10", "1.9", 1, false],
  ["1.01", "1.1", 0, false],
  ["18446744073709551616.0", "18446744073709551615.9", 1, false],
  ["1.2.3.4", "1.2.3", 1, false],
  ["0.9", "1.0.0.a", -1, false],
  ["1.0.pre.0", "1.pre", 0, true],
  ["3.0.0.beta2", "3.0.0.beta10", -1, true],
  ["1.0.b1", "1.0.a2", 1, true],
  ["5.2.4.rc1", "5.2.4.1", -1, true],
  ["1.15.3", "1.13.2", 1, false],
  ["1.0.0-1", "1.0.0", -1, true],
  ["1.0.0-x-y", "1.0.0.pre.x.y", -1, true],
  ["0", "0.0.0", 0, false],
  ["1.0.0.a", "1.0.0.A", 1, true],
];

test("gem versions order as Gem::Version orders them, both ways round", () => {
  for (const [a, b, expected, prerelease] of ORDER) {
    assert.equal(rubyGemsScheme.compareText(a, b).value, expected, `${a} <=> ${b}`);
    assert.equal(rubyGemsScheme.compareText(b, a).value, -expected || 0, `${b} <=> ${a}`);
    assert.equal(parseRubyGemsVersion(a).value?.prerelease, prerelease, `${a} prerelease?`);
  }
});

test("what Gem::Version.correct? refuses is refused, with the reason", () => {
  for (const text of ["1a", "1.0-", "1..0", ".1", "a", "v1.0", "1.0.0+build", "1_0"]) {
    assert.match(parseRubyGemsVersion(text).error ?? "", /not digits/, text);
  }
  assert.match(parseRubyGemsVersion("").error ?? "", /empty/);
  // RubyGems strips white space; a package's recorded version never has any.
  assert.notEqual(parseRubyGemsVersion("1.0 ").error, undefined);
  assert.match(parseRubyGemsVersion(`1.${"0".repeat(300)}`).error ?? "", /longer than 256/);
});
