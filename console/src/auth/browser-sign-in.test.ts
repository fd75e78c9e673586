import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { safeNext } from "./browser-sign-in.ts";

describe("safeNext", () => {
  it("keeps a path of the console, with its query", () => {
    assert.equal(safeNext("/orgs/acme/repos/app?page=2"), "/orgs/acme/repos/app?page=2");
    assert.equal(safeNext("/"), "/");
  });

  it("sends anything that could leave the console to the start", () => {
    for (const next of [
      "//evil.example/",
      "/\\evil.example",
      "https://evil.example/",
      "javascript:alert(1)",
      "orgs",
      "",
      null,
      undefined,
    ]) {
      assert.equal(safeNext(next), "/", String(next));
    }
  });
});
