import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseStrictJson } from "./strict-json.ts";

const parse = (text: string | Buffer, depth = 64) =>
  parseStrictJson(typeof text === "string" ? Buffer.from(text) : text, depth);

describe("parseStrictJson", () => {
  it("reads JSON and keeps the source of top-level primitives", () => {
    const { value, error } = parse('{"schemaVersion": 2e308, "a": {"b": [1, "}\\"{"]}, "c": "x"}');
    assert.equal(error, undefined);
    assert.deepEqual(value?.value, { schemaVersion: Infinity, a: { b: [1, '}"{'] }, c: "x" });
    assert.equal(value?.topLevelSource.get("schemaVersion"), "2e308");
    assert.equal(value?.topLevelSource.get("c"), '"x"');
    assert.equal(value?.topLevelSource.has("a"), false);
    assert.equal(value?.topLevelSource.has("b"), false);
  });

  it("allows the same key in different objects", () => {
    const { error } = parse('{"a": {"x": 1}, "b": {"x": 2}, "l": [{"x": 1}, {"x": 2}]}');
    assert.equal(error, undefined);
  });

  it("refuses invalid UTF-8 and a byte order mark", () => {
    assert.match(
      parse(Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d])).error ?? "",
      /UTF-8/,
    );
    assert.match(parse(Buffer.from([0xed, 0xa0, 0x80])).error ?? "", /UTF-8/);
    assert.ok(parse(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("{}")])).error);
  });

  it("refuses duplicate keys anywhere, also when escaped or differing only in case", () => {
    for (const text of [
      '{"a": 1, "a": 2}',
      '{"a": 1, "\\u0061": 2}',
      '{"x": [{"a": 1, "b": {"c": 1, "c": 2}}]}',
      '{"mediaType": "a", "MediaType": "b"}',
      '{"manifests": [], "manifeſts": []}',
      '{"\\u212a": 1, "k": 2}',
    ]) {
      assert.match(parse(text).error ?? "", /duplicate|case/, text);
    }
  });

  it("refuses escaped lone surrogates", () => {
    assert.match(parse('{"\\ud800": 1, "\\udfff": 2}').error ?? "", /surrogate/);
    assert.match(parse('["\\udc00"]').error ?? "", /surrogate/);
    assert.equal(parse('["\\ud83d\\ude00"]').error, undefined);
  });

  it("caps nesting without recursion, also for a 4 MiB body", () => {
    assert.equal(parse(`${"[".repeat(64)}${"]".repeat(64)}`).error, undefined);
    assert.match(parse(`${"[".repeat(65)}${"]".repeat(65)}`).error ?? "", /deeper than 64/);
    const started = performance.now();
    const deep = parse(`${'{"a":'.repeat(800_000)}1${"}".repeat(800_000)}`);
    assert.match(deep.error ?? "", /deeper/);
    assert.ok(performance.now() - started < 1000);
  });

  it("costs about what JSON.parse costs on a wide object", () => {
    const members = Array.from({ length: 50_000 }, (_, i) => `"k${i}":${i}`);
    const body = Buffer.from(`{${members.join(",")}}`);
    // Timed against JSON.parse on the same text, so a loaded machine slows both alike.
    let started = performance.now();
    JSON.parse(body.toString());
    const plain = performance.now() - started;
    started = performance.now();
    const { error } = parse(body);
    const strict = performance.now() - started;
    assert.equal(error, undefined);
    assert.ok(strict < 10 * plain + 500, `${strict.toFixed(0)} ms against ${plain.toFixed(0)} ms`);
  });

  it("refuses text that is not JSON", () => {
    for (const text of ['{"a": 1', '{"a" 1}', "{'a': 1}", '{"a": tru}', '"', "", "[1,]"]) {
      assert.ok(parse(text).error, text);
    }
  });
});
