import assert from "node:assert/strict";
import { before, it } from "node:test";
import { readHistory } from "../../src/registry/index.ts";
import { failed, type Loose, matrix, ok, timestamp, violations } from "../support/matrix.ts";
import { putImage, type RegistryApi, registryApi } from "../support/registry-api.ts";

matrix("Registry tags", (h) => {
  let reg: RegistryApi;
  let org = "";
  let repo = "";
  let other = "";
  const digests: string[] = [];
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
    const list = ok(await h.api.list("roles", { page_size: 200 })).roles as Loose[];
    roles = Object.fromEntries(list.map((r) => [r.name, r.uid]));
    repo = ok(await reg.createRepo(org, { name: "app" })).uid;
    other = ok(await reg.createRepo(org, { name: "other" })).uid;
    for (const arch of ["amd64", "arm64", "s390x"])
      digests.push((await putImage(h.server, repo, arch, [1])).digest);
    for (const name of ["b", "a", "c", "d"])
      ok(await reg.createTag(repo, { name, digest: digests[name === "d" ? 1 : 0] }));
  });

  it("creates a tag pointing at a manifest of the repo", async () => {
    const tag = ok(await reg.createTag(repo, { name: "v1.0", digest: digests[0] }));
    assert.match(tag.uid, new RegExp(`^${repo}/[0-9a-f]{16}$`));
    assert.equal(tag.name, "v1.0");
    assert.equal(tag.digest, digests[0]);
    assert.equal(tag.deprecated, false);
    assert.match(tag.createTime, timestamp);
    assert.match(tag.updateTime, timestamp);
    assert.deepEqual(ok(await reg.getTag(tag.uid)), tag);
  });

  it("moves a tag with CreateTag and records every move in its history", async () => {
    const first = ok(await reg.createTag(repo, { name: "latest", digest: digests[0] }));
    const moved = ok(await reg.createTag(repo, { name: "latest", digest: digests[1] }));
    assert.equal(moved.uid, first.uid);
    assert.equal(moved.digest, digests[1]);
    assert.ok(moved.updateTime >= first.updateTime);
    assert.equal(moved.createTime, first.createTime);
    const again = ok(await reg.createTag(repo, { name: "latest", digest: digests[1] }));
    assert.equal(again.updateTime, moved.updateTime);
    const db = h.server.lading.store.db;
    const history = await readHistory(db, repo, "latest");
    assert.deepEqual(
      history.map((r) => r.digest),
      [digests[0], digests[1]],
    );
    assert.equal(history[1].updateTimestamp, moved.updateTime);
    const rows = await db
      .selectFrom("tag_history")
      .select(["digest", "seq"])
      .where("repo_uid", "=", repo)
      .where("tag", "=", "latest")
      .orderBy("seq")
      .execute();
    assert.deepEqual(
      rows.map((r) => [r.digest, Number(r.seq)]),
      [
        [digests[0], 1],
        [digests[1], 2],
      ],
    );
  });

  it("records every one of many concurrent moves of one tag", async () => {
    const extra = await Promise.all(
      Array.from({ length: 8 }, (_, i) => putImage(h.server, repo, `arch${i}`, [i + 1])),
    );
    const results = await Promise.all(
      extra.map((image) => reg.createTag(repo, { name: "nightly", digest: image.digest })),
    );
    assert.equal(new Set(results.map((r) => ok(r).uid)).size, 1);
    const history = await readHistory(h.server.lading.store.db, repo, "nightly");
    assert.deepEqual(
      history.map((r) => r.digest).sort(),
      extra.map((image) => image.digest).sort(),
    );
    const tag = (
      ok(await reg.listTags({ "uidp.children_of": repo, name: "nightly" })).tags as Loose[]
    )[0];
    assert.equal(tag.digest, history.at(-1)?.digest);
  });

  it("validates name and digest, and requires the digest to be a manifest of the repo", async () => {
    const bad = failed(await reg.createTag(repo, { name: ".x", digest: "sha256:abc" }));
    assert.equal(bad.code, 3);
    assert.deepEqual(
      violations(bad)
        .map((v) => v.field)
        .sort(),
      ["digest", "name"],
    );
    const foreign = (await putImage(h.server, other, "amd64", [1])).digest;
    const notHere = failed(await reg.createTag(repo, { name: "x", digest: foreign }));
    assert.equal(notHere.code, 3);
    assert.deepEqual(
      violations(notHere).map((v) => v.field),
      ["digest"],
    );
    const missingRepo = failed(
      await reg.createTag(`${org}/0123456789abcdef`, { name: "x", digest: digests[0] }),
    );
    assert.equal(missingRepo.code, 5);
  });

  it("lists with uidp.children_of, name, digest, order_by, page_size, page_token and skip", async () => {
    const all = ok(await reg.listTags({ "uidp.children_of": repo, order_by: "name" }));
    const sorted = all.tags.map((t: Loose) => t.name);
    assert.deepEqual(sorted, [...sorted].sort());
    assert.ok(sorted.includes("a") && sorted.includes("latest"));
    assert.equal(all.totalCount, String(sorted.length));
    const desc = ok(await reg.listTags({ "uidp.children_of": repo, order_by: "name desc" }));
    assert.deepEqual(
      desc.tags.map((t: Loose) => t.name),
      [...sorted].reverse(),
    );
    const byName = ok(await reg.listTags({ "uidp.children_of": repo, name: "c" }));
    assert.deepEqual(
      byName.tags.map((t: Loose) => t.name),
      ["c"],
    );
    assert.equal(byName.totalCount, "1");
    const byDigest = ok(await reg.listTags({ "uidp.children_of": repo, digest: digests[1] }));
    assert.ok(byDigest.tags.every((t: Loose) => t.digest === digests[1]));
    assert.ok(byDigest.tags.some((t: Loose) => t.name === "d"));
    const updated = ok(
      await reg.listTags({ "uidp.children_of": repo, order_by: "updated_at desc" }),
    );
    const times = updated.tags.map((t: Loose) => t.updateTime);
    assert.deepEqual(times, [...times].sort().reverse());
    const created = ok(await reg.listTags({ "uidp.children_of": repo, order_by: "created_at" }));
    const createTimes = created.tags.map((t: Loose) => t.createTime);
    assert.deepEqual(createTimes, [...createTimes].sort());
    const uids = ok(await reg.listTags({ "uidp.children_of": repo })).tags.map((t: Loose) => t.uid);
    assert.deepEqual(uids, [...uids].sort());
    const page1 = ok(
      await reg.listTags({ "uidp.children_of": repo, order_by: "name", page_size: 2 }),
    );
    assert.deepEqual(
      page1.tags.map((t: Loose) => t.name),
      sorted.slice(0, 2),
    );
    const page2 = ok(
      await reg.listTags({
        "uidp.children_of": repo,
        order_by: "name",
        page_size: 2,
        page_token: page1.nextPageToken,
      }),
    );
    assert.deepEqual(
      page2.tags.map((t: Loose) => t.name),
      sorted.slice(2, 4),
    );
    const skipped = ok(
      await reg.listTags({ "uidp.children_of": repo, order_by: "name", page_size: 1, skip: 2 }),
    );
    assert.deepEqual(
      skipped.tags.map((t: Loose) => t.name),
      [sorted[2]],
    );
    assert.equal(skipped.skipped, 2);
    assert.deepEqual(ok(await reg.listTags({ "uidp.children_of": other })).tags, []);
  });

  it("sets deprecated with UpdateTag only, and lists deprecated tags in v1 eoltags", async () => {
    const tag = ok(await reg.createTag(repo, { name: "1.0", digest: digests[2] }));
    const set = ok(await reg.updateTag(tag.uid, { deprecated: true }, "deprecated"));
    assert.equal(set.deprecated, true);
    assert.equal(set.updateTime, tag.updateTime);
    assert.equal(ok(await reg.getTag(tag.uid)).deprecated, true);
    const noMask = ok(await reg.updateTag(tag.uid, { deprecated: true }));
    assert.equal(noMask.deprecated, true);
    const unmasked = ok(await reg.updateTag(tag.uid, { deprecated: false }));
    assert.equal(unmasked.deprecated, h.transport === "grpc");
    ok(await reg.updateTag(tag.uid, { deprecated: true }, "deprecated"));
    const digestMask = failed(await reg.updateTag(tag.uid, { digest: digests[0] }, "digest"));
    assert.deepEqual(
      violations(digestMask).map((v) => v.field),
      ["update_mask"],
    );
    const second = ok(await reg.createTag(repo, { name: "0.9", digest: digests[2] }));
    ok(await reg.updateTag(second.uid, { deprecated: true }, "deprecated"));
    const eol = ok(await reg.listEolTags({}));
    const ids = eol.items.map((i: Loose) => i.id);
    assert.deepEqual(ids, [tag.uid, second.uid].sort());
    const item = eol.items.find((i: Loose) => i.id === tag.uid);
    assert.deepEqual(
      { name: item.name, repoId: item.repoId, digest: item.digest },
      { name: "1.0", repoId: repo, digest: digests[2] },
    );
    assert.equal(item.uid, undefined);
    const paged = ok(await reg.listEolTags({ page_size: 1 }));
    assert.equal(paged.items.length, 1);
    assert.ok(paged.nextPageToken);
    const rest = ok(await reg.listEolTags({ page_size: 1, page_token: paged.nextPageToken }));
    assert.deepEqual(
      [...paged.items, ...rest.items].map((i: Loose) => i.id),
      ids,
    );
    const named = ok(await reg.listEolTags({ name: "0.9", "uidp.children_of": repo }));
    assert.deepEqual(
      named.items.map((i: Loose) => i.id),
      [second.uid],
    );
    ok(await reg.updateTag(second.uid, { deprecated: false }, "deprecated"));
    assert.deepEqual(
      ok(await reg.listEolTags({})).items.map((i: Loose) => i.id),
      [tag.uid],
    );
    if (h.transport === "rest") {
      const res = await fetch(`${h.server.apiUrl}/registry/v1/eoltags`, {
        headers: { authorization: `Bearer ${h.server.org.token}` },
      });
      assert.deepEqual(Object.keys((await res.json()) as object).sort(), [
        "items",
        "nextPageToken",
      ]);
    }
  });

  it("lists a tag's history through the API as the registry serves it (v1 ListTagHistory)", async () => {
    const first = ok(await reg.createTag(repo, { name: "hist", digest: digests[0] }));
    ok(await reg.createTag(repo, { name: "hist", digest: digests[1] }));
    const last = ok(await reg.createTag(repo, { name: "hist", digest: digests[2] }));
    const all = ok(await reg.listTagHistory(first.uid));
    assert.deepEqual(Object.keys(all), ["items"]);
    assert.deepEqual(
      all.items.map((r: Loose) => r.digest),
      [digests[0], digests[1], digests[2]],
    );
    const stored = await readHistory(h.server.lading.store.db, repo, "hist");
    assert.deepEqual(all.items, stored);
    const times = all.items.map((r: Loose) => r.updateTimestamp as string);
    const windowed = ok(await reg.listTagHistory(first.uid, { start: times[1], end: times[2] }));
    assert.deepEqual(
      windowed.items.map((r: Loose) => r.updateTimestamp),
      times.slice(1).filter((t: string) => t >= times[1] && t <= times[2]),
    );
    assert.equal(
      ok(await reg.listTagHistory(last.uid, { end: "2000-01-01T00:00:00Z" })).items.length,
      0,
    );
    const bad = failed(
      await reg.listTagHistory(first.uid, { start: "yesterday", end: "2000-01-01" }),
    );
    assert.equal(bad.code, 3);
    assert.deepEqual(
      violations(bad)
        .map((v) => v.field)
        .sort(),
      ["end", "start"],
    );
    const reversed = failed(
      await reg.listTagHistory(first.uid, {
        start: "2026-01-02T00:00:00Z",
        end: "2026-01-01T00:00:00Z",
      }),
    );
    assert.deepEqual(
      violations(reversed).map((v) => v.field),
      ["end"],
    );
    assert.deepEqual(
      violations(failed(await reg.listTagHistory("nope"))).map((v) => v.field),
      ["parent_id"],
    );
    const unknown = failed(await reg.listTagHistory(`${repo}/0123456789abcdef`));
    assert.equal(unknown.code, 5);
  });

  it("hides a tag's history from callers who may not list its tags", async () => {
    const tag = ok(await reg.createTag(repo, { name: "secret-hist", digest: digests[0] }));
    const outsider = await actor("history-outsider");
    assert.equal(failed(await outsider.listTagHistory(tag.uid)).code, 5);
    const anonymous = registryApi(h.transport, h.server.apiUrl, undefined);
    assert.equal(failed(await anonymous.listTagHistory(tag.uid)).code, 16);
    const viewer = await actor("history-viewer", "viewer");
    assert.equal(ok(await viewer.listTagHistory(tag.uid)).items.length, 1);
  });

  it("deletes a tag and keeps its history", async () => {
    const tag = ok(await reg.createTag(repo, { name: "temp", digest: digests[0] }));
    assert.deepEqual(ok(await reg.deleteTag(tag.uid)), {});
    assert.equal(failed(await reg.getTag(tag.uid)).code, 5);
    const history = await readHistory(h.server.lading.store.db, repo, "temp");
    assert.deepEqual(
      history.map((r) => r.digest),
      [digests[0]],
    );
  });

  it("lets a viewer list tags but not create, update or delete them", async () => {
    const viewer = await actor("tag-viewer", "viewer");
    const tags = ok(await viewer.listTags({ "uidp.children_of": repo })).tags as Loose[];
    assert.ok(tags.length > 0);
    ok(await viewer.getTag(tags[0].uid));
    assert.ok(ok(await viewer.listEolTags({})).items.length > 0);
    for (const result of [
      await viewer.createTag(repo, { name: "nope", digest: digests[0] }),
      await viewer.updateTag(tags[0].uid, { deprecated: true }, "deprecated"),
      await viewer.deleteTag(tags[0].uid),
    ])
      assert.equal(failed(result).code, 7);
  });

  it("shows an identity without bindings no tags", async () => {
    const nobody = await actor("tag-nobody");
    const tags = ok(await reg.listTags({ "uidp.children_of": repo })).tags as Loose[];
    assert.deepEqual(ok(await nobody.listTags({ "uidp.children_of": repo })).tags, []);
    assert.deepEqual(ok(await nobody.listEolTags({})).items, []);
    assert.equal(failed(await nobody.getTag(tags[0].uid)).code, 5);
    assert.equal(
      failed(await nobody.createTag(repo, { name: "nope", digest: digests[0] })).code,
      5,
    );
  });
});
