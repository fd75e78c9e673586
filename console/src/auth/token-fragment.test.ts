import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { maxFragmentTokenLength, takeTokenFragment } from "./token-fragment.ts";

const jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl";

describe("takeTokenFragment", () => {
  it("takes the token and leaves an empty fragment", () => {
    assert.deepEqual(takeTokenFragment(`#token=${jwt}`), { token: jwt, hash: "" });
  });

  it("keeps the other fragment parameters in order", () => {
    assert.deepEqual(takeTokenFragment(`#a=1&token=${jwt}&b=2`), { token: jwt, hash: "#a=1&b=2" });
  });

  it("leaves a fragment without a token as it is", () => {
    assert.deepEqual(takeTokenFragment(""), { hash: "" });
    assert.deepEqual(takeTokenFragment("#"), { hash: "" });
    assert.deepEqual(takeTokenFragment("#section-2"), { hash: "#section-2" });
    assert.deepEqual(takeTokenFragment("#mytoken=x"), { hash: "#mytoken=x" });
  });

  it("refuses, and still removes, a token that is empty, repeated, malformed or too long", () => {
    for (const [fragment, error] of [
      ["#token=", /empty/],
      [`#token=${jwt}&token=${jwt}`, /more than one/],
      ["#token=<script>alert(1)</script>", /not a Lading token/],
      ["#token=a%20b", /not a Lading token/],
      [`#token=${"a".repeat(maxFragmentTokenLength + 1)}`, /not a Lading token/],
    ] as const) {
      const taken = takeTokenFragment(fragment);
      assert.equal(taken.token, undefined, fragment);
      assert.match(taken.error ?? "", error, fragment);
      assert.equal(taken.hash, "", fragment);
    }
  });
});
