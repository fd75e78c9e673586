import assert from "node:assert/strict";
import { test } from "node:test";
import { compileSafePattern, maxMatchedLength, maxPatternLength } from "./safe-pattern.ts";

const matcher = (pattern: string) => {
  const { value, error } = compileSafePattern(pattern);
  assert.equal(error, undefined);
  return value as NonNullable<typeof value>;
};

test("a pattern that backtracks exponentially in JavaScript answers at once", () => {
  const evil = `https://${"a".repeat(34)}!`;
  const started = performance.now();
  assert.equal(matcher("https://(a+)+$")(evil), false);
  assert.equal(matcher("(x+x+)+y")("x".repeat(1000)), false);
  assert.equal(matcher("(.*a){20}")("a".repeat(19) + "b".repeat(1000)), false);
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 500, `took ${elapsed.toFixed(0)} ms`);
  assert.equal(matcher("https://(a+)+$")(`https://${"a".repeat(34)}`), true);
});

test("patterns match whole values, whatever their alternations and anchors", () => {
  const host = matcher("https://a\\.example/[a-z]+");
  assert.equal(host("https://a.example/x"), true);
  assert.equal(host("https://a.example/x.evil"), false);
  assert.equal(host("xhttps://a.example/x"), false);
  assert.equal(matcher("a|b")("ab"), false);
  assert.equal(matcher("a|b")("b"), true);
  assert.equal(matcher("^a$")("a"), true);
  assert.equal(matcher("a")("a\n"), false);
});

test("backreferences, lookaround and other syntax RE2 cannot run are refused with a reason", () => {
  const refused: [string, RegExp][] = [
    ["(a)\\1", /backreference/],
    ["(?<n>a)\\k<n>", /backreference/],
    ["a(?=b)", /lookahead or lookbehind/],
    ["a(?!b)", /lookahead or lookbehind/],
    ["(?<=a)b", /lookahead or lookbehind/],
    ["(?<!a)b", /lookahead or lookbehind/],
    ["https://(", /does not parse/],
    ["a)|(b", /does not parse/],
    ["a{1001}", /does not parse/],
    ["a".repeat(maxPatternLength + 1), /longer than 1024/],
    ["(?:[a-z]{0,1000})(?:[a-z]{0,1000})", /RE2 instructions/],
  ];
  for (const [pattern, reason] of refused) {
    const { value, error } = compileSafePattern(pattern);
    assert.equal(value, undefined, pattern);
    assert.match(error ?? "", reason, pattern);
  }
  assert.doesNotMatch(compileSafePattern("a".repeat(maxPatternLength)).error ?? "", /longer/);
});

test("values longer than the limit never match", () => {
  const any = matcher("(?s).*");
  assert.equal(any("a".repeat(maxMatchedLength)), true);
  assert.equal(any("a".repeat(maxMatchedLength + 1)), false);
});

test("the largest accepted program stays fast on the longest value", () => {
  const slow = matcher("(?:\\pL{0,99}){5}!");
  const started = performance.now();
  for (let i = 0; i < 5; i++) slow(`${"é".repeat(maxMatchedLength - 2)}${i}`);
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 1500, `took ${elapsed.toFixed(0)} ms`);
});

test("compiled patterns are cached, failures included", () => {
  assert.equal(compileSafePattern("cached-[0-9]+"), compileSafePattern("cached-[0-9]+"));
  assert.equal(compileSafePattern("(a)\\1"), compileSafePattern("(a)\\1"));
});
