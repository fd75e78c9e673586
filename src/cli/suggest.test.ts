import assert from "node:assert/strict";
import { it } from "node:test";
import { closest, editDistance } from "./suggest.ts";

it("counts insertions, deletions, substitutions and adjacent transpositions as one edit", () => {
  assert.equal(editDistance("parent", "parent"), 0);
  assert.equal(editDistance("parnet", "parent"), 1);
  assert.equal(editDistance("paren", "parent"), 1);
  assert.equal(editDistance("parentt", "parent"), 1);
  assert.equal(editDistance("porent", "parent"), 1);
  assert.equal(editDistance("", "abc"), 3);
  assert.equal(editDistance("hlep", "help"), 1);
});

it("suggests the closest candidate within two edits, or the only one it begins", () => {
  const flags = ["parent", "page-size", "page-token", "name", "description"];
  assert.equal(closest("parnet", flags), "parent");
  assert.equal(closest("page-szie", flags), "page-size");
  assert.equal(closest("desc", flags), "description");
  assert.equal(closest("page", flags), undefined);
  assert.equal(closest("frobnicate", flags), undefined);
  assert.equal(closest("hlep", ["help", "api"]), "help");
  assert.equal(closest("iam", ["auth", "images", "admin"]), undefined);
  assert.equal(closest("grops", ["groups", "roles"]), "groups");
});
