import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { escapeHtml, negotiateSimple, plainHtml, simpleHtml, simpleJson } from "./simple-format.ts";

describe("negotiateSimple", () => {
  const cases: [string | undefined, string | undefined][] = [
    [undefined, plainHtml],
    ["", plainHtml],
    ["*/*", plainHtml],
    ["text/*", plainHtml],
    [
      "application/vnd.pypi.simple.v1+json, application/vnd.pypi.simple.v1+html; q=0.1, text/html; q=0.01",
      simpleJson,
    ],
    ["application/vnd.pypi.simple.latest+json", simpleJson],
    ["application/vnd.pypi.simple.latest+html", simpleHtml],
    ["application/vnd.pypi.simple.v1+json;q=0.5, text/html;q=0.9", plainHtml],
    ["application/*;q=0.2, text/html;q=0.1", simpleHtml],
    ["text/html;q=0, */*;q=0.5", simpleHtml],
    ["application/json", undefined],
    ["text/html;q=0", undefined],
    ["application/vnd.pypi.simple.v2+json", undefined],
  ];
  for (const [accept, expected] of cases) {
    it(`answers ${JSON.stringify(accept)} with ${expected ?? "406"}`, () => {
      assert.equal(negotiateSimple(accept), expected);
    });
  }
});

describe("escapeHtml", () => {
  it("escapes what could end an attribute or start a tag", () => {
    assert.equal(
      escapeHtml(`>=3.8,<4 & "x" 'y'`),
      "&gt;=3.8,&lt;4 &amp; &quot;x&quot; &#39;y&#39;",
    );
  });
});
