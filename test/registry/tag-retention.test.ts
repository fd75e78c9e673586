import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { retentionLeaseName, retentionStep } from "../../src/registry/index.ts";
import { acquireLease } from "../../src/store/metadata/index.ts";
import { type Result, restCall } from "../support/api-client.ts";
import { addIdentity } from "../support/iam-fixtures.ts";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const body = (r: Result) => {
  assert.ok(r.ok, `expected success, got ${JSON.stringify(r)}`);
  return r.body as Record<string, unknown>;
};
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString();

for (const pair of registryPairs) {
  describe(`tag retention and expiry [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let org: string;
    let repoUid: string;
    const db = () => r.server.lading.store.db;
    const api = (method: string, path: string, json?: object, token = r.server.org.token) =>
      restCall(r.server.apiUrl, token, method, path, json as never);
    const oci = () => ociClient(r.registryUrl, r.ownerToken);
    const tagNames = async () =>
      (
        await db()
          .selectFrom("tags")
          .select("name")
          .where("parent_uid", "=", repoUid)
          .orderBy("name")
          .execute()
      ).map((t) => t.name);
    const backdate = (name: string, days: number) =>
      db()
        .updateTable("tags")
        .set({ update_time: daysAgo(days) })
        .where("parent_uid", "=", repoUid)
        .where("name", "=", name)
        .execute();
    const pushAnnotated = async (tag: string, expires: string) => {
      const image = buildImage(`annotated ${tag}`);
      for (const blob of image.blobs.values()) await oci().pushBlob("acme/app", blob);
      const manifest = JSON.parse(image.manifest.toString());
      manifest.annotations = { "dev.lading.expires": expires };
      return oci().putManifest("acme/app", tag, Buffer.from(JSON.stringify(manifest)));
    };

    before(async () => {
      r = await startRegistryServer(pair, {}, { tagRetentionIntervalMs: 0 });
      org = r.server.org.groupUid;
      for (const tag of [
        "rc-1",
        "rc-2",
        "rc-3",
        "rc-4",
        "old",
        "fresh",
        "p-used",
        "p-idle",
        "exp-api",
      ]) {
        await oci().pushImage("acme/app", tag, buildImage(tag));
      }
      const repo = await db()
        .selectFrom("repos")
        .select("uid")
        .where("name", "=", "app")
        .executeTakeFirstOrThrow();
      repoUid = repo.uid;
      for (const [i, tag] of ["rc-1", "rc-2", "rc-3", "rc-4"].entries())
        await backdate(tag, 10 - i);
      await backdate("old", 40);
      await backdate("p-used", 40);
      await backdate("p-idle", 40);
      // A pull by tag records its pull time.
      assert.equal((await oci().fetch("/v2/acme/app/manifests/p-used")).status, 200);
      for (let i = 0; i < 50; i++) {
        const row = await db()
          .selectFrom("tags")
          .select("pull_time")
          .where("parent_uid", "=", repoUid)
          .where("name", "=", "p-used")
          .executeTakeFirstOrThrow();
        if (row.pull_time) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const policies = [
        { pattern: "rc-1", kind: "TAG_POLICY_KIND_IMMUTABLE" },
        { pattern: "rc-*", kind: "TAG_POLICY_KIND_KEEP_NEWEST", count: 2 },
        { pattern: "p-*", kind: "TAG_POLICY_KIND_NOT_PULLED", days: 30 },
      ];
      for (const p of policies) body(await api("POST", `/registry/v2/tagPolicies/${org}`, p));
      body(
        await api("POST", `/registry/v2/tagPolicies/${repoUid}`, {
          pattern: "o*",
          kind: "TAG_POLICY_KIND_NOT_PUSHED",
          days: 30,
        }),
      );
    });
    after(() => r?.close());

    it("sets a tag's expiry through the API and a manifest annotation, and refuses malformed ones", async () => {
      const tag = await db()
        .selectFrom("tags")
        .select("uid")
        .where("parent_uid", "=", repoUid)
        .where("name", "=", "exp-api")
        .executeTakeFirstOrThrow();
      const updated = body(
        await api("PATCH", `/registry/v2/tags/${tag.uid}?updateMask=expireTime`, {
          expireTime: "2026-01-01T00:00:00Z",
        }),
      );
      assert.equal(updated.expireTime, "2026-01-01T00:00:00.000Z");
      const bad = await api("PATCH", `/registry/v2/tags/${tag.uid}?updateMask=expireTime`, {
        expireTime: "soon",
      });
      assert.ok(!bad.ok);
      assert.equal(bad.code, 3);
      assert.equal((await pushAnnotated("exp-note", "1h")).status, 201);
      const noted = await db()
        .selectFrom("tags")
        .select("expire_time")
        .where("parent_uid", "=", repoUid)
        .where("name", "=", "exp-note")
        .executeTakeFirstOrThrow();
      const inAnHour = Date.parse(noted.expire_time ?? "") - Date.now();
      assert.ok(inAnHour > 3_000_000 && inAnHour <= 3_600_000, String(inAnHour));
      const refused = await pushAnnotated("exp-bad", "next tuesday");
      assert.equal(refused.status, 400);
      assert.match(await refused.text(), /MANIFEST_INVALID.*dev\.lading\.expires/);
    });

    it("previews what would go without deleting anything, for those who may see the tags", async () => {
      const preview = body(await api("GET", `/registry/v2/tagPolicies/${org}:preview`));
      assert.deepEqual(
        (preview.tags as { name: string; reason: string }[]).map((t) => [t.name, t.reason]),
        [
          ["exp-api", "expire_time"],
          ["old", "not_pushed"],
          ["p-idle", "not_pulled"],
          ["rc-2", "keep_newest"],
        ],
      );
      const outsider = await addIdentity(r.server, "");
      const hidden = await api(
        "GET",
        `/registry/v2/tagPolicies/${org}:preview`,
        undefined,
        outsider.token,
      );
      assert.ok(!hidden.ok);
      assert.equal(hidden.httpStatus, 404);
      const dry = await retentionStep({ db: db(), registryUrl: r.registryUrl, dryRun: true });
      assert.equal(dry.length, 4);
      assert.ok((await tagNames()).includes("old"));
    });

    it("deletes what the policies and expiry times let go, never an immutable tag, with history and events", async () => {
      const later = new Date(Date.now() + 2 * 3_600_000);
      const deleted = await retentionStep({ db: db(), registryUrl: r.registryUrl, now: later });
      assert.deepEqual(deleted.map((d) => d.name).sort(), [
        "exp-api",
        "exp-note",
        "old",
        "p-idle",
        "rc-2",
      ]);
      assert.deepEqual(await tagNames(), ["fresh", "p-used", "rc-1", "rc-3", "rc-4"]);
      const records = await db()
        .selectFrom("tag_history")
        .select(["tag", "action"])
        .where("repo_uid", "=", repoUid)
        .where("action", "=", "expire")
        .orderBy("tag")
        .execute();
      assert.deepEqual(
        records.map((x) => x.tag),
        ["exp-api", "exp-note", "old", "p-idle", "rc-2"],
      );
      const events = await db()
        .selectFrom("events")
        .select(["subject", "data"])
        .where("type", "=", "dev.lading.registry.tag.deleted.v1")
        .execute();
      const byRetention = events.filter(
        (e) => JSON.parse(e.data).actor?.act?.sub === "lading:retention",
      );
      assert.deepEqual(byRetention.map((e) => e.subject).sort(), deleted.map((d) => d.uid).sort());
      // Nothing is left to delete; a deleted tag can be restored from its history.
      assert.deepEqual(
        await retentionStep({ db: db(), registryUrl: r.registryUrl, now: later }),
        [],
      );
      const old = deleted.find((d) => d.name === "old");
      body(await api("POST", `/registry/v2/tags/${old?.uid}:restore`, { digest: old?.digest }));
      assert.ok((await tagNames()).includes("old"));
    });
  });
}

for (const pair of registryPairs) {
  describe(`tag retention schedule [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    before(async () => {
      r = await startRegistryServer(pair, {}, { tagRetentionIntervalMs: 200 });
    });
    after(() => r?.close());

    it("runs on its own schedule, one replica at a time", async () => {
      const db = r.server.lading.store.db;
      await ociClient(r.registryUrl, r.ownerToken).pushImage("acme/app", "tmp", buildImage("t"));
      await db
        .updateTable("tags")
        .set({ expire_time: daysAgo(1) })
        .where("name", "=", "tmp")
        .execute();
      let left = 1;
      for (let i = 0; i < 100 && left > 0; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        left = (await db.selectFrom("tags").select("uid").where("name", "=", "tmp").execute())
          .length;
      }
      assert.equal(left, 0);
      // Another replica holding the lease keeps this one from running.
      let held = false;
      for (let i = 0; i < 50 && !held; i++)
        held = await acquireLease(db, retentionLeaseName, "other-replica", 60_000);
      assert.ok(held);
      assert.equal(await acquireLease(db, retentionLeaseName, "third-replica", 60_000), false);
      await ociClient(r.registryUrl, r.ownerToken).pushImage("acme/app", "tmp2", buildImage("u"));
      await db
        .updateTable("tags")
        .set({ expire_time: daysAgo(1) })
        .where("name", "=", "tmp2")
        .execute();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      assert.equal(
        (await db.selectFrom("tags").select("uid").where("name", "=", "tmp2").execute()).length,
        1,
      );
    });
  });
}
