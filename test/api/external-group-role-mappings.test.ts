import assert from "node:assert/strict";
import { before, it } from "node:test";
import {
  actor,
  builtIn,
  customRole,
  type FederationApi,
  federationApi,
  rivalOwner,
} from "../support/federation-api.ts";
import { failed, type Loose, matrix, ok, timestamp, violations } from "../support/matrix.ts";

const kind = "externalGroupRoleMappings";

matrix("External group role mappings", (h) => {
  let fed: FederationApi;
  let org = "";
  let team = "";
  let subteam = "";
  let sibling = "";
  let idp = "";

  const newProvider = async (name: string, group = team) =>
    ok(
      await fed.create("identityProviders", group, {
        name,
        defaultRole: builtIn.viewer,
        oidc: { issuer: "https://login.example.com", clientId: "lading", pkceEnabled: true },
      }),
    ).uid as string;

  before(async () => {
    fed = federationApi(h.transport, h.server.apiUrl, h.server.org.token);
    org = h.server.org.groupUid;
    team = ok(await h.api.create("groups", org, { name: "team" })).uid as string;
    subteam = ok(await h.api.create("groups", team, { name: "subteam" })).uid as string;
    sibling = ok(await h.api.create("groups", org, { name: "sibling" })).uid as string;
    idp = await newProvider("corp");
  });

  it("creates a mapping under a provider, scoped to its group by default; reads, lists and deletes it", async () => {
    const m = ok(
      await fed.create(kind, idp, { externalGroupId: "engineering", roleUid: builtIn.editor }),
    );
    assert.match(m.uid as string, new RegExp(`^${idp}/[0-9a-f]{16}$`));
    assert.equal(m.identityProviderUid, idp);
    assert.equal(m.externalGroupId, "engineering");
    assert.equal(m.roleUid, builtIn.editor);
    assert.equal(m.scope, team);
    assert.match(m.createTime as string, timestamp);
    assert.deepEqual(ok(await fed.get(kind, m.uid as string)), m);
    const listed = ok(await fed.list(kind, { identity_provider_uid: idp }));
    assert.ok((listed.externalGroupRoleMappings as Loose[]).some((x) => x.uid === m.uid));
    assert.deepEqual(ok(await fed.delete(kind, m.uid as string)), {});
    assert.equal(failed(await fed.get(kind, m.uid as string)).code, 5);
  });

  it("accepts a descendant scope and a custom role defined above it", async () => {
    const role = await customRole(h, team, "team-reader", ["CAP_GROUPS_LIST", "CAP_REPO_LIST"]);
    const m = ok(
      await fed.create(kind, idp, { externalGroupId: "readers", roleUid: role, scope: subteam }),
    );
    assert.equal(m.scope, subteam);
    assert.equal(m.roleUid, role);
  });

  it("refuses a duplicate mapping: code 6", async () => {
    const body = { externalGroupId: "dup", roleUid: builtIn.viewer };
    ok(await fed.create(kind, idp, body));
    assert.equal(failed(await fed.create(kind, idp, body)).code, 6);
    assert.equal(failed(await fed.create(kind, idp, { ...body, scope: team })).code, 6);
    ok(await fed.create(kind, idp, { ...body, scope: subteam }));
  });

  it("names every invalid field", async () => {
    const siblingRole = await customRole(h, sibling, "sibling-role", ["CAP_GROUPS_LIST"]);
    const cases: [Loose, string[]][] = [
      [{ externalGroupId: "", roleUid: "" }, ["external_group_id", "role_uid"]],
      [{ externalGroupId: "x".repeat(257), roleUid: builtIn.viewer }, ["external_group_id"]],
      [{ externalGroupId: "g", roleUid: "0".repeat(40) }, ["role_uid"]],
      [{ externalGroupId: "g", roleUid: siblingRole }, ["role_uid"]],
      [{ externalGroupId: "g", roleUid: builtIn.viewer, scope: org }, ["scope"]],
      [{ externalGroupId: "g", roleUid: builtIn.viewer, scope: sibling }, ["scope"]],
      [
        { externalGroupId: "g", roleUid: builtIn.viewer, scope: `${team}/0000000000000000` },
        ["scope"],
      ],
      [{ externalGroupId: "g", roleUid: builtIn.viewer, scope: "nope" }, ["scope"]],
    ];
    for (const [body, fields] of cases) {
      const result = failed(await fed.create(kind, idp, body));
      assert.equal(result.code, 3, JSON.stringify(body));
      assert.deepEqual(
        violations(result)
          .map((v) => v.field)
          .sort(),
        fields,
        JSON.stringify(body),
      );
    }
    assert.equal(
      failed(
        await fed.create(kind, `${team}/0000000000000000`, {
          externalGroupId: "g",
          roleUid: builtIn.viewer,
        }),
      ).code,
      5,
    );
    assert.equal(failed(await fed.list(kind, { identity_provider_uid: "bad" })).code, 3);
  });

  it("lists with the provider filter, uidp and pages", async () => {
    const other = await newProvider("paging");
    for (const g of ["a", "b", "c"])
      ok(await fed.create(kind, other, { externalGroupId: g, roleUid: builtIn.viewer }));
    const page1 = ok(await fed.list(kind, { identity_provider_uid: other, page_size: 2 }));
    assert.equal((page1.externalGroupRoleMappings as Loose[]).length, 2);
    assert.equal(String(page1.totalCount), "3");
    const page2 = ok(
      await fed.list(kind, {
        identity_provider_uid: other,
        page_size: 2,
        page_token: page1.nextPageToken as string,
      }),
    );
    const all = [
      ...(page1.externalGroupRoleMappings as Loose[]),
      ...(page2.externalGroupRoleMappings as Loose[]),
    ];
    assert.deepEqual(all.map((m) => m.externalGroupId).sort(), ["a", "b", "c"]);
    const byUidp = ok(await fed.list(kind, { "uidp.descendants_of": other }));
    assert.equal((byUidp.externalGroupRoleMappings as Loose[]).length, 3);
    const byOrder = ok(
      await fed.list(kind, { identity_provider_uid: other, order_by: "created_at desc" }),
    );
    assert.equal((byOrder.externalGroupRoleMappings as Loose[]).length, 3);
  });

  it("refuses to map a role with capabilities the caller lacks (anti-escalation)", async () => {
    const admin = await customRole(h, org, "mapper", [
      "CAP_GROUPS_LIST",
      "CAP_IDENTITY_PROVIDERS_CREATE",
      "CAP_IDENTITY_PROVIDERS_LIST",
      "CAP_ROLE_BINDINGS_CREATE",
    ]);
    const a = await actor(h, "mapper-user", org, [admin]);
    for (const roleUid of [builtIn.owner, builtIn.editor]) {
      const denied = failed(await a.fed.create(kind, idp, { externalGroupId: "esc", roleUid }));
      assert.equal(denied.code, 7);
      assert.match(denied.message, /capabilities the caller lacks/);
    }
    ok(await a.fed.create(kind, idp, { externalGroupId: "esc", roleUid: admin }));
  });

  it("refuses every operation to callers without its capability", async () => {
    const m = ok(
      await fed.create(kind, idp, { externalGroupId: "guarded", roleUid: builtIn.viewer }),
    );
    const uid = m.uid as string;
    const body = { externalGroupId: "other", roleUid: builtIn.viewer };
    const viewer = await actor(h, "mapping-viewer", org, [builtIn.viewer]);
    assert.deepEqual(ok(await viewer.fed.get(kind, uid)), m);
    assert.ok(
      (
        ok(await viewer.fed.list(kind, { identity_provider_uid: idp }))
          .externalGroupRoleMappings as Loose[]
      ).some((x) => x.uid === uid),
    );
    assert.equal(failed(await viewer.fed.create(kind, idp, body)).code, 7);
    assert.equal(failed(await viewer.fed.delete(kind, uid)).code, 7);

    const noBind = await customRole(h, org, "mapper-no-bind", [
      "CAP_GROUPS_LIST",
      "CAP_IDENTITY_PROVIDERS_CREATE",
      "CAP_IDENTITY_PROVIDERS_LIST",
    ]);
    const half = await actor(h, "mapper-half", org, [noBind, builtIn.viewer]);
    const denied = failed(await half.fed.create(kind, idp, body));
    assert.equal(denied.code, 7);
    assert.match(denied.message, /role_bindings\.create/);

    const nobody = await actor(h, "mapping-nobody", org, []);
    assert.equal(failed(await nobody.fed.get(kind, uid)).code, 5);
    assert.deepEqual(ok(await nobody.fed.list(kind)).externalGroupRoleMappings ?? [], []);

    const rival = await rivalOwner(h, "rival-mappings");
    assert.equal(failed(await rival.fed.get(kind, uid)).code, 5);
    assert.equal(failed(await rival.fed.create(kind, idp, body)).code, 5);
    assert.equal(failed(await rival.fed.delete(kind, uid)).code, 5);
    ok(await fed.get(kind, uid));
  });

  it("deletes the role bindings a mapping made along with it", async () => {
    const m = ok(
      await fed.create(kind, idp, { externalGroupId: "bound", roleUid: builtIn.viewer }),
    );
    const identity = ok(await h.api.create("identities", org, { name: "mapped" }));
    const db = h.server.lading.store.db;
    await db
      .insertInto("role_bindings")
      .values({
        uid: `${team}/00000000000000bb`,
        parent_uid: team,
        identity_uid: identity.uid as string,
        role_uid: builtIn.viewer,
        mapping_uid: m.uid as string,
        create_time: m.createTime as string,
        update_time: m.createTime as string,
      })
      .execute();
    ok(await fed.delete(kind, m.uid as string));
    const left = await db
      .selectFrom("role_bindings")
      .select("uid")
      .where("mapping_uid", "=", m.uid as string)
      .execute();
    assert.deepEqual(left, []);
  });

  it("deletes a provider's external group role mappings and the bindings they made", async () => {
    const p = { uid: await newProvider("with mappings") };
    const m = ok(
      await fed.create(kind, p.uid, {
        externalGroupId: "engineering",
        roleUid: builtIn.viewer,
      }),
    );
    const identity = ok(await h.api.create("identities", org, { name: "mapped-user" }));
    const db = h.server.lading.store.db;
    await db
      .insertInto("role_bindings")
      .values({
        uid: `${team}/00000000000000aa`,
        parent_uid: team,
        identity_uid: identity.uid as string,
        role_uid: builtIn.viewer,
        mapping_uid: m.uid as string,
        create_time: m.createTime as string,
        update_time: m.createTime as string,
      })
      .execute();
    assert.deepEqual(ok(await fed.delete("identityProviders", p.uid)), {});
    assert.equal(failed(await fed.get(kind, m.uid as string)).code, 5);
    const left = await db
      .selectFrom("role_bindings")
      .select("uid")
      .where("mapping_uid", "=", m.uid as string)
      .execute();
    assert.deepEqual(left, []);
  });

  it("refuses to delete a group with identity providers or mappings scoped to it", async () => {
    const parent = ok(await h.api.create("groups", org, { name: "doomed" })).uid as string;
    const child = ok(await h.api.create("groups", parent, { name: "scoped" })).uid as string;
    const p = await newProvider("doomed", parent);
    const m = ok(
      await fed.create(kind, p, { externalGroupId: "x", roleUid: builtIn.viewer, scope: child }),
    );
    const scoped = failed(await h.api.delete("groups", child));
    assert.equal(scoped.code, 9);
    assert.match(scoped.message, /external group role mappings/);
    ok(await fed.delete(kind, m.uid as string));
    ok(await h.api.delete("groups", child));
    const withProvider = failed(await h.api.delete("groups", parent));
    assert.equal(withProvider.code, 9);
    assert.match(withProvider.message, /identity providers/);
    ok(await fed.delete("identityProviders", p));
    ok(await h.api.delete("groups", parent));
  });
});
