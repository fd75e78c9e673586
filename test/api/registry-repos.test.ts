import assert from "node:assert/strict";
import { before, it } from "node:test";
import { retentionStep } from "../../src/registry/index.ts";
import {
  detail,
  failed,
  type Loose,
  matrix,
  ok,
  timestamp,
  violations,
} from "../support/matrix.ts";
import { putImage, type RegistryApi, registryApi } from "../support/registry-api.ts";

matrix("Registry repos", (h) => {
  let reg: RegistryApi;
  let org = "";
  let team = "";
  let roles: Record<string, string> = {};

  async function actor(name: string, role?: string): Promise<RegistryApi> {
    const identity = ok(await h.api.create("identities", org, { name }));
    if (role)
      ok(
        await h.api.create("roleBindings", org, {
          identityUid: identity.uid,
          roleUid: roles[role],
        }),
      );
    return registryApi(h.transport, h.server.apiUrl, await h.server.token(identity.uid as string));
  }

  before(async () => {
    reg = registryApi(h.transport, h.server.apiUrl, h.server.org.token);
    org = h.server.org.groupUid;
    team = ok(await h.api.create("groups", org, { name: "team" })).uid as string;
    const list = ok(await h.api.list("roles", { page_size: 200 })).roles as Loose[];
    roles = Object.fromEntries(list.map((r) => [r.name, r.uid]));
    for (const [parent, name] of [
      [org, "base/alpine"],
      [org, "nginx"],
      [team, "team/app"],
      [team, "team/db"],
      [team, "zeta"],
    ])
      ok(await reg.createRepo(parent, { name, description: `the ${name} image` }));
  });

  it("creates a repo with every field and reads it back by uid", async () => {
    const repo = ok(
      await reg.createRepo(team, { name: "tools/curl", description: "curl", readme: "# curl" }),
    );
    assert.match(repo.uid, new RegExp(`^${team}/[0-9a-f]{16}$`));
    assert.equal(repo.name, "tools/curl");
    assert.equal(repo.readme, "# curl");
    assert.match(repo.createTime, timestamp);
    assert.equal(repo.updateTime, repo.createTime);
    assert.deepEqual(ok(await reg.getRepo(repo.uid)), repo);
  });

  it("validates names: one violation per failing field", async () => {
    for (const name of ["", "Upper", "a//b", "-x", "x-", "a..b", "trailing/", "sp ace"]) {
      const result = failed(await reg.createRepo(team, { name }));
      assert.equal(result.code, 3, name);
      assert.deepEqual(
        violations(result).map((v) => v.field),
        ["name"],
        name,
      );
      assert.equal(detail(result, "ErrorInfo")?.domain, "registry.lading.dev");
    }
    for (const name of ["a.b_c__d---e", "x/y/z", "0"]) ok(await reg.createRepo(team, { name }));
    const both = failed(await reg.createRepo(team, { name: "BAD", description: "a\nb" }));
    assert.deepEqual(
      violations(both)
        .map((v) => v.field)
        .sort(),
      ["description", "name"],
    );
    const long = failed(await reg.createRepo(team, { name: "a".repeat(252) }));
    assert.equal(long.code, 3);
    ok(await reg.createRepo(team, { name: "a".repeat(255 - "acme/".length) }));
  });

  it("keeps names unique per organisation: ALREADY_EXISTS from another group too", async () => {
    const result = failed(await reg.createRepo(team, { name: "nginx" }));
    assert.equal(result.code, 6);
    if (result.httpStatus) assert.equal(result.httpStatus, 409);
  });

  it("lists with name, uidp filters, order_by, page_size, page_token and skip", async () => {
    const byName = ok(await reg.listRepos({ name: "team/app" }));
    assert.deepEqual(
      byName.repos.map((r: Loose) => r.name),
      ["team/app"],
    );
    assert.equal(byName.totalCount, "1");
    const children = ok(await reg.listRepos({ "uidp.children_of": org, order_by: "name" }));
    assert.deepEqual(
      children.repos.map((r: Loose) => r.name),
      ["base/alpine", "nginx"],
    );
    assert.equal(children.totalCount, "2");
    const everything = ok(await reg.listRepos({ page_size: 200 }));
    assert.equal(everything.totalCount, String(everything.repos.length));
    const below = ok(await reg.listRepos({ "uidp.descendants_of": team, order_by: "name desc" }));
    const names = below.repos.map((r: Loose) => r.name);
    assert.deepEqual(names, [...names].sort().reverse());
    assert.ok(names.includes("zeta") && !names.includes("nginx"));
    const all = ok(await reg.listRepos({ order_by: "created_at desc", page_size: 200 }));
    const created = all.repos.map((r: Loose) => r.createTime);
    assert.deepEqual(created, [...created].sort().reverse());
    const uids = ok(await reg.listRepos({ page_size: 200 })).repos.map((r: Loose) => r.uid);
    assert.deepEqual(uids, [...uids].sort());
    const first = ok(await reg.listRepos({ order_by: "name", page_size: 2 }));
    assert.equal(first.repos.length, 2);
    assert.ok(first.nextPageToken);
    const second = ok(
      await reg.listRepos({ order_by: "name", page_size: 2, page_token: first.nextPageToken }),
    );
    const sorted = all.repos.map((r: Loose) => r.name).sort();
    assert.deepEqual(
      second.repos.map((r: Loose) => r.name),
      sorted.slice(2, 4),
    );
    const skipped = ok(await reg.listRepos({ order_by: "name", page_size: 2, skip: 3 }));
    assert.deepEqual(
      skipped.repos.map((r: Loose) => r.name),
      sorted.slice(3, 5),
    );
    assert.equal(skipped.skipped, 3);
    const updated = ok(await reg.listRepos({ order_by: "updated_at", page_size: 200 }));
    const times = updated.repos.map((r: Loose) => r.updateTime);
    assert.deepEqual(times, [...times].sort());
    const bad = failed(await reg.listRepos({ order_by: "size" }));
    assert.deepEqual(
      violations(bad).map((v) => v.field),
      ["order_by"],
    );
    const mixed = failed(await reg.listRepos({ order_by: "uid", page_token: first.nextPageToken }));
    assert.deepEqual(
      violations(mixed).map((v) => v.field),
      ["page_token"],
    );
  });

  it("updates partially: absent mask changes present fields, a mask only its paths", async () => {
    const repo = ok(await reg.createRepo(team, { name: "upd", description: "d0", readme: "r0" }));
    const one = ok(await reg.updateRepo(repo.uid, { description: "d1" }));
    assert.equal(one.description, "d1");
    assert.equal(one.readme, "r0");
    assert.ok(one.updateTime >= repo.updateTime);
    const two = ok(
      await reg.updateRepo(repo.uid, { description: "ignored", readme: "r2" }, "readme"),
    );
    assert.equal(two.description, "d1");
    assert.equal(two.readme, "r2");
    const cleared = ok(await reg.updateRepo(repo.uid, { description: "" }, "description"));
    assert.equal(cleared.description, "");
    assert.equal(cleared.name, "upd");
    const renamed = failed(await reg.updateRepo(repo.uid, { name: "other" }, "name"));
    assert.deepEqual(
      violations(renamed).map((v) => v.field),
      ["update_mask"],
    );
    const out = failed(await reg.updateRepo(repo.uid, {}, "createTime"));
    assert.deepEqual(
      violations(out).map((v) => v.field),
      ["update_mask"],
    );
    assert.equal(ok(await reg.getRepo(repo.uid)).readme, "r2");
  });

  it("deletes a repo without tags, refuses one with tags: RESOURCE_NOT_EMPTY", async () => {
    const repo = ok(await reg.createRepo(team, { name: "gone" }));
    const image = await putImage(h.server, repo.uid, "amd64", [10]);
    const tag = ok(await reg.createTag(repo.uid, { name: "v1", digest: image.digest }));
    const refused = failed(await reg.deleteRepo(repo.uid));
    assert.equal(refused.code, 9);
    assert.match(refused.message, /^Precondition failed: cannot delete repo with child tags/);
    const pre = detail(refused, "PreconditionFailure")?.violations as Loose[];
    assert.equal(pre[0].type, "RESOURCE_NOT_EMPTY");
    ok(await reg.deleteTag(tag.uid));
    assert.deepEqual(ok(await reg.deleteRepo(repo.uid)), {});
    assert.equal(failed(await reg.getRepo(repo.uid)).code, 5);
    // Its manifests stay, restorable, for the deleted-repo window; then retention purges them.
    const manifests = () =>
      h.server.lading.store.db
        .selectFrom("manifests")
        .select("digest")
        .where("repo_uid", "=", repo.uid)
        .execute();
    assert.equal((await manifests()).length, 1);
    const registryUrl = h.server.lading.registryUrl;
    await retentionStep({ db: h.server.lading.store.db, registryUrl });
    assert.equal((await manifests()).length, 1);
    const later = new Date(Date.now() + 31 * 86_400_000);
    await retentionStep({ db: h.server.lading.store.db, registryUrl, now: later });
    assert.equal((await manifests()).length, 0);
  });

  it("refuses to delete a group with child repos, in the spec's exact form", async () => {
    const group = ok(await h.api.create("groups", org, { name: "holder" })).uid as string;
    const repo = ok(await reg.createRepo(group, { name: "held" }));
    const result = failed(await h.api.delete("groups", group));
    assert.equal(result.code, 9);
    assert.equal(result.message, "Precondition failed: cannot delete group with child repos");
    assert.equal(detail(result, "ErrorInfo")?.reason, "FAILED_PRECONDITION");
    const pre = detail(result, "PreconditionFailure")?.violations as Loose[];
    assert.equal(pre.length, 1);
    assert.equal(pre[0].type, "RESOURCE_NOT_EMPTY");
    assert.match(pre[0].description, /cannot delete group with child repos/);
    if (result.httpStatus) assert.equal(result.httpStatus, 400);
    ok(await reg.deleteRepo(repo.uid));
    ok(await h.api.delete("groups", group));
  });

  it("lets a viewer list and read but not create, update or delete", async () => {
    const viewer = await actor("repo-viewer", "viewer");
    const repos = ok(await viewer.listRepos({ page_size: 200 })).repos as Loose[];
    assert.ok(repos.some((r) => r.name === "nginx"));
    const nginx = repos.find((r) => r.name === "nginx") as Loose;
    ok(await viewer.getRepo(nginx.uid));
    for (const result of [
      await viewer.createRepo(org, { name: "nope" }),
      await viewer.updateRepo(nginx.uid, { description: "x" }),
      await viewer.deleteRepo(nginx.uid),
    ]) {
      assert.equal(failed(result).code, 7);
      if (failed(result).httpStatus) assert.equal(failed(result).httpStatus, 403);
    }
  });

  it("shows an identity without bindings nothing: empty lists and NOT_FOUND", async () => {
    const nobody = await actor("repo-nobody");
    const list = ok(await nobody.listRepos());
    assert.deepEqual(list.repos, []);
    assert.equal(list.totalCount, "0");
    const nginx = (ok(await reg.listRepos({ name: "nginx" })).repos as Loose[])[0];
    assert.equal(failed(await nobody.getRepo(nginx.uid)).code, 5);
    assert.equal(failed(await nobody.createRepo(org, { name: "nope" })).code, 5);
    assert.equal(failed(await nobody.deleteRepo(nginx.uid)).code, 5);
  });
});
