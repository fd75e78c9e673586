import assert from "node:assert/strict";
import { before, it } from "node:test";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { detail, failed, matrix, ok } from "../support/matrix.ts";

const roles = {
  owner: "",
  viewer: "63921b2c44617e3f2603851537be0123af4a57d7",
  pullTokenCreator: "",
};

matrix("Authentication and access", (h) => {
  /** A new identity under `parent`, bound to `roleUid` on `bindOn` (if given), with a token. */
  async function actor(name: string, parent: string, roleUid?: string, bindOn?: string) {
    const identity = ok(await h.api.create("identities", parent, { name }));
    if (roleUid)
      ok(
        await h.api.create("roleBindings", bindOn ?? parent, {
          identityUid: identity.uid as string,
          roleUid,
        }),
      );
    const token = await h.server.token(identity.uid as string);
    return { uid: identity.uid as string, api: h.as(token) };
  }

  let org = "";
  let team = "";
  let other = "";

  before(async () => {
    org = h.server.org.groupUid;
    const list = ok(await h.api.list("roles", { page_size: 200 })).roles as {
      uid: string;
      name: string;
    }[];
    roles.owner = list.find((r) => r.name === "owner")?.uid ?? "";
    roles.pullTokenCreator = list.find((r) => r.name === "registry.pull_token_creator")?.uid ?? "";
    team = ok(await h.api.create("groups", org, { name: "team" })).uid as string;
    other = ok(await h.api.create("groups", org, { name: "other" })).uid as string;
    ok(await h.api.create("identities", other, { name: "hidden" }));
  });

  it("answers Ping without credentials", async () => {
    const res = await fetch(`${h.server.apiUrl}/ping/v2/ping`);
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as { response: string }).response, "pong");
  });

  it("refuses a request without a token: code 16", async () => {
    const result = failed(await h.as(undefined).list("groups"));
    assert.equal(result.code, 16);
    assert.ok(detail(result, "ErrorInfo"));
    if (result.httpStatus) assert.equal(result.httpStatus, 401);
  });

  it("refuses malformed, expired and foreign-signed tokens: code 16", async () => {
    const expired = await h.server.token(h.server.org.identityUid, { ttlSeconds: 1 });
    const { privateKey, publicKey } = await generateKeyPair("ES256");
    const kid = (await exportJWK(publicKey)).x;
    const foreign = await new SignJWT({})
      .setProtectedHeader({ alg: "ES256", kid })
      .setIssuer(h.server.apiUrl)
      .setSubject(h.server.org.identityUid)
      .setAudience(h.server.apiUrl)
      .setIssuedAt()
      .setExpirationTime("10m")
      .sign(privateKey);
    const [head, , sig] = h.server.org.token.split(".");
    const forgedPayload = Buffer.from(
      JSON.stringify({ sub: "x", aud: h.server.apiUrl, iss: h.server.apiUrl, exp: 9999999999 }),
    ).toString("base64url");
    await new Promise((r) => setTimeout(r, 1500));
    for (const token of ["garbage", "a.b.c", expired, foreign, `${head}.${forgedPayload}.${sig}`]) {
      const result = failed(await h.as(token).list("groups"));
      assert.equal(result.code, 16, `token ${token.slice(0, 12)}… refused`);
    }
  });

  it("refuses a token for another audience: code 7, HTTP 403", async () => {
    const token = await h.server.token(h.server.org.identityUid, {
      audience: "registry.example.com",
    });
    const result = failed(await h.as(token).list("groups"));
    assert.equal(result.code, 7);
    if (result.httpStatus) assert.equal(result.httpStatus, 403);
  });

  it("refuses the token of a deleted identity", async () => {
    const gone = await actor("short-lived", org);
    ok(await h.api.delete("identities", gone.uid));
    assert.equal(failed(await gone.api.list("groups")).code, 16);
  });

  it("lets a viewer read but not write; refusals say PERMISSION_DENIED", async () => {
    const viewer = await actor("viewer-1", org, roles.viewer);
    assert.ok((ok(await viewer.api.list("identities")).identities as unknown[]).length > 0);
    ok(await viewer.api.get("groups", team));
    for (const result of [
      await viewer.api.create("identities", org, { name: "nope" }),
      await viewer.api.create("groups", org, { name: "nope" }),
      await viewer.api.update("groups", team, { description: "nope" }),
      await viewer.api.delete("groups", team),
      await viewer.api.create("roles", org, { name: "nope", capabilities: ["CAP_GROUPS_LIST"] }),
      await viewer.api.create("roleBindings", org, {
        identityUid: viewer.uid,
        roleUid: roles.owner,
      }),
    ]) {
      assert.equal(failed(result).code, 7);
    }
    assert.equal((ok(await h.api.get("groups", team)) as { description: string }).description, "");
  });

  it("shows an identity without bindings nothing, as if nothing existed", async () => {
    const nobody = await actor("nobody", org);
    const groups = ok(await nobody.api.list("groups"));
    assert.deepEqual(groups.groups, []);
    assert.equal(groups.totalCount, "0");
    assert.deepEqual(ok(await nobody.api.list("identities")).identities, []);
    assert.deepEqual(ok(await nobody.api.list("roleBindings")).roleBindings, []);
    for (const result of [
      await nobody.api.get("groups", team),
      await nobody.api.get("identities", nobody.uid),
      await nobody.api.delete("groups", team),
      await nobody.api.update("groups", team, { description: "x" }),
      await nobody.api.create("identities", team, { name: "x" }),
      await nobody.api.get("groups", `${org}/0123456789abcdef`),
    ]) {
      const error = failed(result);
      assert.equal(error.code, 5);
    }
  });

  it("limits an identity made under a subgroup to that subgroup (reach), whatever the root binds", async () => {
    const scoped = await actor("scoped", team, roles.owner, org);
    assert.deepEqual(ok(await scoped.api.list("groups")).groups, []);
    assert.equal(failed(await scoped.api.get("groups", org)).code, 5);
    ok(
      await h.api.create("roleBindings", team, { identityUid: scoped.uid, roleUid: roles.viewer }),
    );
    const seen = (ok(await scoped.api.list("groups")).groups as { uid: string }[]).map(
      (g) => g.uid,
    );
    assert.deepEqual(seen, [team]);
    assert.equal(failed(await scoped.api.get("groups", other)).code, 5);
  });

  it("lists only what the caller may see, with a matching totalCount", async () => {
    const squad = ok(await h.api.create("groups", org, { name: "squad" })).uid as string;
    const teamViewer = await actor("squad-viewer", org, roles.viewer, squad);
    ok(await h.api.create("identities", squad, { name: "member" }));
    const page = ok(await teamViewer.api.list("identities"));
    const names = (page.identities as { name: string }[]).map((i) => i.name);
    assert.deepEqual(names, ["member"]);
    assert.equal(page.totalCount, "1");
    assert.deepEqual(
      ok(await teamViewer.api.list("identities", { "uidp.descendants_of": other })).identities,
      [],
    );
  });

  it("takes a removed binding away at once", async () => {
    const identity = ok(await h.api.create("identities", org, { name: "revoked" }));
    const binding = ok(
      await h.api.create("roleBindings", org, {
        identityUid: identity.uid as string,
        roleUid: roles.viewer,
      }),
    );
    const api = h.as(await h.server.token(identity.uid as string));
    ok(await api.get("groups", team));
    ok(await h.api.delete("roleBindings", binding.uid as string));
    assert.equal(failed(await api.get("groups", team)).code, 5);
  });

  it("keeps one organisation out of another's", async () => {
    const { bootstrapOrganisation } = await import("../../src/app/index.ts");
    const rival = await bootstrapOrganisation(h.server.lading.store.db, "rival");
    const api = h.as(await h.server.token(rival.identityUid));
    assert.deepEqual(
      (ok(await api.list("groups")).groups as { uid: string }[]).map((g) => g.uid),
      [rival.groupUid],
    );
    assert.equal(failed(await api.get("groups", org)).code, 5);
    assert.equal(
      failed(
        await api.create("roleBindings", rival.groupUid, {
          identityUid: h.server.org.identityUid,
          roleUid: roles.viewer,
        }),
      ).code,
      3,
    );
  });

  it("never lets a caller grant a role with capabilities it lacks", async () => {
    const creator = await actor("token-maker", org, roles.pullTokenCreator);
    const target = ok(await h.api.create("identities", org, { name: "pull-bot" }));
    const escalate = failed(
      await creator.api.create("roleBindings", org, {
        identityUid: target.uid as string,
        roleUid: roles.owner,
      }),
    );
    assert.equal(escalate.code, 7);
    const pull = (
      ok(await h.api.list("roles", { name: "registry.pull" })).roles as { uid: string }[]
    )[0].uid;
    ok(
      await creator.api.create("roleBindings", org, {
        identityUid: target.uid as string,
        roleUid: pull,
      }),
    );
  });
});
