import assert from "node:assert/strict";
import { test } from "node:test";
import { WellFormedJsonDecoder, wellFormedJson } from "./json-decoder.ts";

test("escaped lone surrogates become U+FFFD, everything else stays", () => {
  const cases: [string, string][] = [
    ['{"a":"\\ud800"}', '{"a":"\\ufffd"}'],
    ['{"a":"\\uDC00x"}', '{"a":"\\ufffdx"}'],
    ['{"a":"\\ud83d\\ude00"}', '{"a":"\\ud83d\\ude00"}'],
    ['{"a":"\\ud800\\ud83d\\ude00"}', '{"a":"\\ufffd\\ud83d\\ude00"}'],
    ['{"a":"\\ud800\\u0041"}', '{"a":"\\ufffd\\u0041"}'],
    ['{"a":"\\\\ud800"}', '{"a":"\\\\ud800"}'],
    ['{"a":"\\\\\\ud800"}', '{"a":"\\\\\\ufffd"}'],
    ['{"a":"\\"\\ud800"}', '{"a":"\\"\\ufffd"}'],
    ['{"a":"plain"}', '{"a":"plain"}'],
  ];
  for (const [input, expected] of cases) {
    assert.equal(wellFormedJson(input), expected, input);
    assert.ok(JSON.parse(wellFormedJson(input)).a.isWellFormed(), input);
  }
});

test("the decoder the RPC library reads JSON with applies it", () => {
  const bytes = new TextEncoder().encode('{"a":"\\udfff"}');
  assert.equal(new WellFormedJsonDecoder().decode(bytes), '{"a":"\\ufffd"}');
});
