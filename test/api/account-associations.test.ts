import assert from "node:assert/strict";
import { before, it } from "node:test";
import {
  actor,
  builtIn,
  type FederationApi,
  federationApi,
  rivalOwner,
} from "../support/federation-api.ts";
import { failed, type Loose, matrix, ok, timestamp, violations } from "../support/matrix.ts";

const kind = "accountAssociations";
const tenant = "72f988bf-86f1-41af-91ab-2d7cd011db47";
const client = "0b6f5e33-3c1d-4a55-9b1c-6a0b6a3e4f21";

const full = {
  name: "prod accounts",
  description: "Production",
  amazon: { account: "123456789012" },
  google: { projectId: "acme-prod-1", projectNumber: "987654321" },
  azure: { tenantId: tenant, clientIds: { ci: client } },
  github: {
    appInstallations: {
      "12345": { installations: [{ installationId: "678", name: "acme" }] },
    },
  },
};

matrix("Account associations", (h) => {
  let fed: FederationApi;
  let org = "";

  const group = async (name: string) =>
    ok(await h.api.create("groups", org, { name })).uid as string;

  before(async () => {
    fed = federationApi(h.transport, h.server.apiUrl, h.server.org.token);
    org = h.server.org.groupUid;
  });

  it("creates the association of a group with every provider block; reads, lists, updates, deletes it", async () => {
    const g = await group("prod");
    const created = ok(await fed.create(kind, g, full));
    assert.equal(created.uid, g);
    assert.equal(created.name, full.name);
    assert.deepEqual(created.amazon, full.amazon);
    assert.deepEqual(created.google, full.google);
    assert.deepEqual(created.azure, full.azure);
    assert.deepEqual(created.github, full.github);
    assert.match(created.createTime as string, timestamp);
    assert.deepEqual(ok(await fed.get(kind, g)), created);
    const row = await h.server.lading.store.db
      .selectFrom("account_associations")
      .selectAll()
      .where("uid", "=", g)
      .executeTakeFirstOrThrow();
    assert.equal(row.parent_uid, org);
    assert.deepEqual(Object.keys(JSON.parse(row.accounts)).sort(), [
      "amazon",
      "azure",
      "github",
      "google",
    ]);

    const listed = ok(await fed.list(kind, { "uidp.children_of": org }));
    assert.ok((listed.accountAssociations as Loose[]).some((a) => a.uid === g));

    const renamed = ok(await fed.update(kind, g, { name: "renamed" }, "name"));
    assert.equal(renamed.name, "renamed");
    assert.deepEqual(renamed.amazon, full.amazon);
    const leaf = ok(
      await fed.update(kind, g, { google: { projectNumber: "42" } }, "google.projectNumber"),
    );
    assert.deepEqual(leaf.google, { projectId: "acme-prod-1", projectNumber: "42" });
    const dropped = ok(await fed.update(kind, g, {}, "amazon"));
    assert.equal(dropped.amazon, undefined);
    assert.deepEqual(dropped.google, leaf.google);
    const inferred = ok(await fed.update(kind, g, { description: "from body" }));
    assert.equal(inferred.description, "from body");
    assert.equal(inferred.name, "renamed");
    const partial = ok(await fed.update(kind, g, { azure: { tenantId: client } }));
    assert.deepEqual(partial.azure, { tenantId: client, clientIds: { ci: client } });

    assert.deepEqual(ok(await fed.delete(kind, g)), {});
    assert.equal(failed(await fed.get(kind, g)).code, 5);
  });

  it("allows exactly one association per group, also on the organisation", async () => {
    const created = ok(await fed.create(kind, org, { name: "org", amazon: full.amazon }));
    assert.equal(created.uid, org);
    const again = failed(await fed.create(kind, org, { name: "again", amazon: full.amazon }));
    assert.equal(again.code, 6);
    const row = await h.server.lading.store.db
      .selectFrom("account_associations")
      .select("parent_uid")
      .where("uid", "=", org)
      .executeTakeFirstOrThrow();
    assert.equal(row.parent_uid, "");
    ok(await fed.delete(kind, org));
    ok(await fed.create(kind, org, { name: "org", amazon: full.amazon }));
    const g = await group("associated");
    ok(await fed.create(kind, g, { name: "g", amazon: full.amazon }));
    const blocked = failed(await h.api.delete("groups", g));
    assert.equal(blocked.code, 9);
    assert.match(blocked.message, /account association/);
    ok(await fed.delete(kind, g));
    ok(await h.api.delete("groups", g));
  });

  it("names every invalid field", async () => {
    const g = await group("invalid");
    const cases: [Loose, string[]][] = [
      [{ name: "" }, ["account_association", "name"]],
      [{ name: "x", amazon: { account: "12345" } }, ["amazon.account"]],
      [{ name: "x", amazon: {} }, ["amazon.account"]],
      [{ name: "x", google: { projectId: "Acme" } }, ["google.project_id"]],
      [{ name: "x", google: { projectId: "acme-" } }, ["google.project_id"]],
      [{ name: "x", google: { projectId: "a".repeat(31) } }, ["google.project_id"]],
      [
        { name: "x", google: { projectId: "acme-prod", projectNumber: "12a" } },
        ["google.project_number"],
      ],
      [{ name: "x", azure: { tenantId: "nope" } }, ["azure.tenant_id"]],
      [{ name: "x", azure: { tenantId: tenant, clientIds: { ci: "nope" } } }, ["azure.client_ids"]],
      [{ name: "x", github: {} }, ["github.app_installations"]],
      [
        { name: "x", github: { appInstallations: { "0": { installations: [] } } } },
        ["github.app_installations"],
      ],
      [
        {
          name: "x",
          github: { appInstallations: { "1": { installations: [{ installationId: "0" }] } } },
        },
        ["github.app_installations"],
      ],
    ];
    for (const [body, fields] of cases) {
      const result = failed(await fed.create(kind, g, body));
      assert.equal(result.code, 3, JSON.stringify(body));
      assert.deepEqual(
        [...new Set(violations(result).map((v) => v.field))].sort(),
        fields,
        JSON.stringify(body),
      );
    }
    ok(await fed.create(kind, g, { name: "ok", google: { projectId: "acme-prod" } }));
    const emptied = failed(await fed.update(kind, g, {}, "google"));
    assert.deepEqual(
      violations(emptied).map((v) => v.field),
      ["account_association"],
    );
    const bad = failed(await fed.update(kind, g, { amazon: { account: "1" } }, "amazon.account"));
    assert.deepEqual(
      violations(bad).map((v) => v.field),
      ["amazon.account"],
    );
  });

  it("lists with name filter, uidp, order_by and pages", async () => {
    const parent = await group("listing");
    for (const name of ["aa-1", "aa-2", "aa-3"]) {
      const g = ok(await h.api.create("groups", parent, { name })).uid as string;
      ok(await fed.create(kind, g, { name, amazon: full.amazon }));
    }
    const page1 = ok(
      await fed.list(kind, { "uidp.descendants_of": parent, order_by: "name desc", page_size: 2 }),
    );
    assert.deepEqual(
      (page1.accountAssociations as Loose[]).map((a) => a.name),
      ["aa-3", "aa-2"],
    );
    assert.equal(String(page1.totalCount), "3");
    const page2 = ok(
      await fed.list(kind, {
        "uidp.descendants_of": parent,
        order_by: "name desc",
        page_size: 2,
        page_token: page1.nextPageToken as string,
      }),
    );
    assert.deepEqual(
      (page2.accountAssociations as Loose[]).map((a) => a.name),
      ["aa-1"],
    );
    const byName = ok(await fed.list(kind, { name: "aa-2" }));
    assert.deepEqual(
      (byName.accountAssociations as Loose[]).map((a) => a.name),
      ["aa-2"],
    );
  });

  it("refuses every operation to callers without its capability", async () => {
    const g = await group("guarded");
    const a = ok(await fed.create(kind, g, { name: "guarded", amazon: full.amazon }));
    const free = await group("free");
    const viewer = await actor(h, "accounts-viewer", org, [builtIn.viewer]);
    assert.deepEqual(ok(await viewer.fed.get(kind, g)), a);
    assert.ok(
      (ok(await viewer.fed.list(kind)).accountAssociations as Loose[]).some((x) => x.uid === g),
    );
    assert.equal(
      failed(await viewer.fed.create(kind, free, { name: "x", amazon: full.amazon })).code,
      7,
    );
    assert.equal(failed(await viewer.fed.update(kind, g, { name: "x" }, "name")).code, 7);
    assert.equal(failed(await viewer.fed.delete(kind, g)).code, 7);

    const nobody = await actor(h, "accounts-nobody", org, []);
    assert.equal(failed(await nobody.fed.get(kind, g)).code, 5);
    assert.deepEqual(ok(await nobody.fed.list(kind)).accountAssociations ?? [], []);

    const rival = await rivalOwner(h, "rival-accounts");
    assert.equal(failed(await rival.fed.get(kind, g)).code, 5);
    assert.equal(
      failed(await rival.fed.create(kind, free, { name: "x", amazon: full.amazon })).code,
      5,
    );
    assert.equal(failed(await rival.fed.update(kind, g, { name: "x" }, "name")).code, 5);
    assert.equal(failed(await rival.fed.delete(kind, g)).code, 5);
    assert.ok(
      !((ok(await rival.fed.list(kind)).accountAssociations ?? []) as Loose[]).some(
        (x) => x.uid === g,
      ),
    );
    assert.deepEqual(ok(await fed.get(kind, g)), a);
  });
});
