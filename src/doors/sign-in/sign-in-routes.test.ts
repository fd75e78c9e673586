import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { isLoopbackRedirect } from "./sign-in-routes.ts";

describe("isLoopbackRedirect", () => {
  it("accepts http loopback URLs on any port and path", () => {
    for (const uri of [
      "http://127.0.0.1:54321/callback",
      "http://[::1]:8080/",
      "http://localhost:1/cb?x=1",
      "http://127.0.0.1/callback",
    ]) {
      assert.ok(isLoopbackRedirect(uri), uri);
    }
  });

  it("refuses other schemes and hosts, credentials, fragments and junk", () => {
    for (const uri of [
      "https://127.0.0.1:1/cb",
      "http://evil.example/cb",
      "http://127.0.0.1.evil.example/cb",
      "http://localhost.evil.example/cb",
      "http://127.0.0.2/cb",
      "http://user:pw@127.0.0.1/cb",
      "http://127.0.0.1/cb#frag",
      "javascript:alert(1)",
      "not a url",
      "",
      `http://127.0.0.1/${"x".repeat(2048)}`,
    ]) {
      assert.equal(isLoopbackRedirect(uri), false, uri);
    }
  });
});
