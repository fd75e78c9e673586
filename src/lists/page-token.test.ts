import assert from "node:assert/strict";
import { it } from "node:test";
import { createPageTokens, pageTokenLifetimeMs } from "./page-token.ts";

const tokens = createPageTokens("secret");
const binding = ["identities", "name", false, {}];

it("reads back the cursor of a token it issued for the same binding", () => {
  const token = tokens.issue(binding, ["alice", "uid-1"]);
  assert.deepEqual(tokens.read(token, binding), { value: ["alice", "uid-1"] });
});

it("treats an empty token as the first page", () => {
  assert.deepEqual(tokens.read("", binding), {});
});

it("restarts from the first page when the token is older than three days", () => {
  const issued = 1_000_000;
  const token = tokens.issue(binding, ["a", "b"], issued);
  assert.deepEqual(tokens.read(token, binding, issued + pageTokenLifetimeMs - 1), {
    value: ["a", "b"],
  });
  assert.deepEqual(tokens.read(token, binding, issued + pageTokenLifetimeMs + 1), {});
});

it("refuses a token bound to other filters, signed by another secret, or damaged", () => {
  const token = tokens.issue(binding, ["a", "b"]);
  for (const [candidate, against] of [
    [token, ["identities", "name", true, {}]],
    [createPageTokens("other").issue(binding, ["a", "b"]), binding],
    [`${token}x`, binding],
    [token.replace(".", ".."), binding],
    ["not-a-token", binding],
  ] as const) {
    assert.equal(tokens.read(candidate, against).error?.field, "page_token");
  }
});
