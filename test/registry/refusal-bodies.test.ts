import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { bootstrapOrganisation } from "../../src/app/index.ts";
import { basicToken } from "../support/oci-client.ts";
import { createPullToken } from "../support/pull-token.ts";
import { bearerChallenges, clientError, parseErrorBody } from "../support/registry-errors.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

/** The built-in role `libraries.javascript.pull`. */
const javascriptPull = "820859d8194d020efa7aa5b1936e40fcf8195fe3";
const blob = `sha256:${"0".repeat(64)}`;

/**
 * Every 401 and 403 of the registry listener carries `{"errors":[{code, message, detail}]}` as
 * `application/json`, so skopeo and podman print the registry's words instead of "error parsing
 * HTTP 401 response body"; a HEAD, which has no body, carries them in the challenge's
 * `error_description`.
 */
for (const pair of registryPairs) {
  describe(`Registry refusals carry OCI error bodies [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    const tokens: Record<string, string> = {};

    before(async () => {
      r = await startRegistryServer(pair);
      const other = await bootstrapOrganisation(r.server.lading.store.db, "other");
      tokens.other = await r.server.token(other.identityUid, { audience: r.host });
      tokens.api = r.server.org.token;
      tokens.expired = await r.server.token(r.server.org.identityUid, {
        audience: r.host,
        ttlSeconds: 1,
      });
      const granted = await fetch(
        `${r.registryUrl}/token?service=${r.host}&scope=repository:nosuch/app:pull,push`,
        { headers: { authorization: basicToken(r.ownerToken) } },
      );
      assert.equal(
        granted.status,
        200,
        "a token request for a missing organisation is granted nothing",
      );
      tokens.scoped = ((await granted.json()) as { token: string }).token;
      tokens.puller = (await createPullToken(r, javascriptPull)).jwt;
      tokens.pullerUid = (
        await r.server.lading.store.db
          .selectFrom("identities")
          .select("uid")
          .where("name", "=", "pull token")
          .executeTakeFirstOrThrow()
      ).uid;
      await new Promise((resolve) => setTimeout(resolve, 1500));
    });
    after(() => r?.close());

    const bearer = (name: string) => `Bearer ${tokens[name]}`;

    /** [what, method, path, Authorization, status, error param of the challenge]. */
    const refusals = (): [string, string, string, string | undefined, number, string?][] => [
      ["no credentials, base", "GET", "/v2/", undefined, 401],
      ["no credentials, manifest", "GET", "/v2/acme/app/manifests/latest", undefined, 401],
      ["no credentials, push", "POST", "/v2/acme/app/blobs/uploads/", undefined, 401],
      ["no credentials, history", "GET", "/v2/acme/app/_lading/history/latest", undefined, 401],
      ["bad token", "GET", "/v2/acme/app/tags/list", "Bearer not-a-jwt", 401, "invalid_token"],
      ["expired token", "GET", "/v2/", bearer("expired"), 401, "invalid_token"],
      ["API audience", "GET", "/v2/", bearer("api"), 403],
      [
        "push to a missing organisation, registry token",
        "POST",
        "/v2/nosuch/app/blobs/uploads/",
        bearer("scoped"),
        401,
        "insufficient_scope",
      ],
      [
        "push to a missing organisation, Lading token",
        "POST",
        "/v2/nosuch/app/blobs/uploads/",
        `Bearer ${r.ownerToken}`,
        403,
      ],
      ["pull denied", "GET", "/v2/acme/app/manifests/latest", bearer("other"), 403],
      [
        "pull denied, registry token",
        "GET",
        "/v2/acme/app/manifests/latest",
        bearer("scoped"),
        401,
        "insufficient_scope",
      ],
      ["/token, Basic garbage", "GET", "/token", basicToken("garbage"), 401, "invalid_token"],
      [
        "/token, another user",
        "GET",
        "/token",
        `Basic ${Buffer.from("bob:secret").toString("base64")}`,
        401,
      ],
      ["/token, API audience", "GET", "/token", basicToken(tokens.api), 403],
      ["/token, registry token", "GET", "/token", bearer("scoped"), 401],
      ["/token, expired", "GET", "/token", basicToken(tokens.expired), 401, "invalid_token"],
      ["npm, no credentials", "GET", "/javascript/acme/left-pad", undefined, 401],
      [
        "npm, publish with a pull token",
        "PUT",
        "/javascript/acme/left-pad",
        `Basic ${Buffer.from(`${tokens.pullerUid}:${tokens.puller}`).toString("base64")}`,
        403,
      ],
    ];

    it("answers every refusal with a JSON OCI error body skopeo and podman read", async () => {
      for (const [what, method, path, authorization, status, error] of refusals()) {
        const res = await fetch(`${r.registryUrl}${path}`, {
          method,
          headers: {
            ...(authorization ? { authorization } : {}),
            "content-type": "application/json",
          },
          body: method === "PUT" ? "{}" : undefined,
        });
        const body = await res.text();
        assert.equal(res.status, status, `${what}: ${body}`);
        assert.equal(res.headers.get("content-type"), "application/json", what);
        const parsed = parseErrorBody(res.status, body);
        assert.equal(parsed[0].parseFailure, undefined, `${what}: ${body}`);
        assert.equal(parsed[0].code, status === 401 ? "UNAUTHORIZED" : "DENIED", what);
        assert.ok(parsed[0].message.length > 0, what);
        const challenge = res.headers.get("www-authenticate");
        const [params = {}] = bearerChallenges(challenge);
        assert.equal(params.error, error, `${what}: ${challenge}`);
        const shown = clientError(res.status, challenge, body);
        assert.doesNotMatch(shown.shown, /error parsing|StatusCode/, what);
        assert.ok(
          shown.all.every((e) => !e.parseFailure),
          `${what}: ${JSON.stringify(shown.all)}`,
        );
        // With an error code the challenge says what the body says.
        if (error) assert.equal(params.error_description, parsed[0].message, what);
      }
    });

    it("puts the message of a refused HEAD, which has no body, in the challenge", async () => {
      const res = await fetch(`${r.registryUrl}/v2/nosuch/app/blobs/${blob}`, {
        method: "HEAD",
        headers: { authorization: bearer("scoped") },
      });
      assert.equal(res.status, 401);
      assert.equal(await res.text(), "");
      const challenge = res.headers.get("www-authenticate");
      const [params] = bearerChallenges(challenge);
      assert.equal(params.error, "insufficient_scope");
      const shown = clientError(res.status, challenge, "");
      assert.equal(
        shown.shown,
        "access to nosuch/app needs pull: the organisation or repository does not exist, or the token does not grant it",
      );
      // The GET of the same blob has the same words in its body.
      const get = await fetch(`${r.registryUrl}/v2/nosuch/app/blobs/${blob}`, {
        headers: { authorization: bearer("scoped") },
      });
      assert.equal(parseErrorBody(get.status, await get.text())[0].message, shown.shown);
    });

    it("says the same whether the organisation exists or not", async () => {
      const message = async (path: string) => {
        const res = await fetch(`${r.registryUrl}${path}`, {
          method: "POST",
          headers: { authorization: bearer("other") },
        });
        const text = await res.text();
        return [
          res.status,
          parseErrorBody(res.status, text)[0].message.replace(/acme|nosuch/, "X"),
        ];
      };
      const existing = await message("/v2/acme/app/blobs/uploads/");
      assert.deepEqual(existing[0], 403);
      assert.deepEqual(existing, await message("/v2/nosuch/app/blobs/uploads/"));
    });

    it("keeps npm's own error field beside the OCI list", async () => {
      const res = await fetch(`${r.registryUrl}/javascript/acme/left-pad`);
      const body = (await res.json()) as { error: string; errors: { message: string }[] };
      assert.equal(res.status, 401);
      assert.equal(body.error, body.errors[0].message);
    });
  });
}
