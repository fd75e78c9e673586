import assert from "node:assert/strict";
import { it } from "node:test";
import { redactBody } from "./redact.ts";

it("keeps a group invite's uid and expiry only", () => {
  const invite = {
    uid: "o/i",
    roleUid: "r",
    code: "lgi_secret",
    keyId: "abcd1234",
    expirationTime: "2026-01-01T00:00:00Z",
  };
  assert.deepEqual(redactBody("lading.iam.v2.GroupInvite", invite), {
    uid: "o/i",
    expirationTime: "2026-01-01T00:00:00Z",
  });
});

it("removes client secrets, static issuer keys and tokens at any depth", () => {
  const provider = { uid: "o/p", oidc: { clientId: "c", clientSecret: "s3cret" } };
  assert.deepEqual(redactBody("lading.iam.v2.IdentityProvider", provider), {
    uid: "o/p",
    oidc: { clientId: "c" },
  });
  const identity = {
    uid: "o/i",
    staticKeys: { issuer: "https://x", subject: "s", issuerKeys: '{"keys":[]}' },
    list: [{ token: "t", kept: 1 }],
  };
  assert.deepEqual(redactBody("lading.iam.v2.Identity", identity), {
    uid: "o/i",
    staticKeys: { issuer: "https://x", subject: "s" },
    list: [{ kept: 1 }],
  });
});
