import assert from "node:assert/strict";
import { test } from "node:test";
import { jsonDepth } from "./json-depth.ts";

test("depth counts nested arrays and objects", () => {
  assert.equal(jsonDepth("1", 64), 0);
  assert.equal(jsonDepth("{}", 64), 1);
  assert.equal(jsonDepth('{"a":[{"b":[]}],"c":{}}', 64), 4);
});

test("brackets and escaped quotes inside strings do not count", () => {
  assert.equal(jsonDepth('{"a":"[[[{{{\\"[[["}', 64), 1);
  assert.equal(jsonDepth('["\\\\", ["x"]]', 64), 2);
});

test("the scan stops once past the limit", () => {
  const deep = "[".repeat(1_000_000);
  assert.equal(jsonDepth(deep, 64), 65);
});
