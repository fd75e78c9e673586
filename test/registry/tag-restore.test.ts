import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { TagsService } from "../../src/gen/lading/registry/v2/tags_pb.js";
import { grpcCaller, type Result, restCall } from "../support/api-client.ts";
import { addIdentity, holder } from "../support/iam-fixtures.ts";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

type History = { history: { updateTimestamp: string; digest: string }[] };

const body = (r: Result) => {
  assert.ok(r.ok, `expected success, got ${JSON.stringify(r)}`);
  return r.body as Record<string, string>;
};

for (const pair of registryPairs) {
  describe(`tag restore from history [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let repoUid: string;
    let a: string;
    let b: string;
    const db = () => r.server.lading.store.db;
    const api = (method: string, path: string, json?: object, token = r.server.org.token) =>
      restCall(r.server.apiUrl, token, method, path, json as never);
    const restore = (uid: string, json: object, token?: string) =>
      api("POST", `/registry/v2/tags/${uid}:restore`, json, token);
    const tag = (name: string) =>
      db()
        .selectFrom("tags")
        .selectAll()
        .where("parent_uid", "=", repoUid)
        .where("name", "=", name)
        .executeTakeFirst();
    const history = async (name: string) =>
      (
        (await (
          await ociClient(r.registryUrl, r.ownerToken).fetch(`/v2/acme/app/_lading/history/${name}`)
        ).json()) as History
      ).history.map((h) => h.digest);

    before(async () => {
      r = await startRegistryServer(pair);
      const oci = ociClient(r.registryUrl, r.ownerToken);
      a = await oci.pushImage("acme/app", "latest", buildImage("a"));
      b = await oci.pushImage("acme/app", "latest", buildImage("b"));
      const repo = await db()
        .selectFrom("repos")
        .select("uid")
        .where("name", "=", "app")
        .executeTakeFirstOrThrow();
      repoUid = repo.uid;
    });
    after(() => r?.close());

    it("moves a tag back to a digest it pointed to, as a history record and an event", async () => {
      const before = await tag("latest");
      assert.equal(before?.digest, b);
      const restored = body(await restore(before?.uid ?? "", { digest: a }));
      assert.equal(restored.digest, a);
      assert.equal(restored.uid, before?.uid);
      assert.deepEqual(await history("latest"), [a, b, a]);
      const record = await db()
        .selectFrom("tag_history")
        .select(["action", "tag_uid"])
        .where("repo_uid", "=", repoUid)
        .where("tag", "=", "latest")
        .orderBy("seq", "desc")
        .executeTakeFirstOrThrow();
      assert.deepEqual(record, { action: "restore", tag_uid: before?.uid });
      const event = await db()
        .selectFrom("events")
        .select(["subject", "data"])
        .where("type", "=", "dev.lading.registry.tag.restored.v1")
        .executeTakeFirstOrThrow();
      assert.equal(event.subject, before?.uid);
      assert.equal(JSON.parse(event.data).body.digest, a);
    });

    it("restores the digest a tag named at a time, over gRPC", async () => {
      const second = await db()
        .selectFrom("tag_history")
        .select("update_time")
        .where("repo_uid", "=", repoUid)
        .where("tag", "=", "latest")
        .where("seq", "=", "2")
        .executeTakeFirstOrThrow();
      const grpc = grpcCaller(r.server.apiUrl, r.server.org.token);
      const uid = (await tag("latest"))?.uid ?? "";
      const answer = await grpc(TagsService, "restoreTag", { uid, time: second.update_time });
      assert.ok(answer.ok, JSON.stringify(answer));
      assert.equal(answer.body.digest, b);
      const early = await grpc(TagsService, "restoreTag", { uid, time: "2000-01-01T00:00:00Z" });
      assert.ok(!early.ok);
      assert.equal(early.code, 9);
      assert.match(early.message, /pointed to no digest at 2000-01-01T00:00:00.000Z/);
    });

    it("refuses a digest the tag never named, and malformed requests", async () => {
      const uid = (await tag("latest"))?.uid ?? "";
      const never = await restore(uid, { digest: `sha256:${"0".repeat(64)}` });
      assert.ok(!never.ok);
      assert.equal(never.httpStatus, 400);
      assert.match(never.message, /never pointed to/);
      for (const bad of [{}, { digest: a, time: "2026-01-01T00:00:00Z" }, { time: "yesterday" }]) {
        const res = await restore(uid, bad);
        assert.ok(!res.ok);
        assert.equal(res.code, 3, JSON.stringify(bad));
      }
    });

    it("brings a deleted tag back under its old uid", async () => {
      const old = await tag("latest");
      const oci = ociClient(r.registryUrl, r.ownerToken);
      const deleted = await oci.fetch("/v2/acme/app/manifests/latest", { method: "DELETE" });
      assert.equal(deleted.status, 202);
      assert.equal(await tag("latest"), undefined);
      const gone = await api("GET", `/registry/v2/tags/${old?.uid}`);
      assert.ok(!gone.ok);
      const back = body(await restore(old?.uid ?? "", { digest: a }));
      assert.equal(back.uid, old?.uid);
      assert.equal(back.digest, a);
      const pulled = await oci.fetch("/v2/acme/app/manifests/latest");
      assert.equal(pulled.headers.get("docker-content-digest"), a);
      const actions = await db()
        .selectFrom("tag_history")
        .select("action")
        .where("repo_uid", "=", repoUid)
        .where("tag", "=", "latest")
        .orderBy("seq")
        .execute();
      assert.deepEqual(
        actions.map((x) => x.action),
        ["move", "move", "restore", "restore", "delete", "restore"],
      );
      // The history endpoint lists what the tag pointed to, not its deletions.
      assert.deepEqual(await history("latest"), [a, b, a, b, a]);
    });

    it("restores by repo uid and name, and refuses a manifest no longer kept", async () => {
      const oci = ociClient(r.registryUrl, r.ownerToken);
      const c = await oci.pushImage("acme/app", "tmp", buildImage("c"));
      const gone = await oci.fetch(`/v2/acme/app/manifests/${c}`, { method: "DELETE" });
      assert.equal(gone.status, 202);
      const refused = await restore(repoUid, { name: "tmp", digest: c });
      assert.ok(!refused.ok);
      assert.equal(refused.code, 9);
      assert.match(refused.message, /no longer kept/);
      await oci.pushImage("acme/app", "tmp", buildImage("c"));
      await oci.pushImage("acme/app", "tmp", buildImage("d"));
      const named = body(await restore(repoUid, { name: "tmp", digest: c }));
      assert.equal(named.name, "tmp");
      assert.equal(named.digest, c);
    });

    it("refuses callers without tag.create, and hides the tag from outsiders", async () => {
      const uid = (await tag("latest"))?.uid ?? "";
      const viewer = await holder(r.server, r.server.org.groupUid, ["repo.list", "tag.list"]);
      const denied = await restore(uid, { digest: b }, viewer.token);
      assert.ok(!denied.ok);
      assert.equal(denied.httpStatus, 403);
      const outsider = await addIdentity(r.server, "");
      const hidden = await restore(uid, { digest: b }, outsider.token);
      assert.ok(!hidden.ok);
      assert.equal(hidden.httpStatus, 404);
      assert.equal((await tag("latest"))?.digest, a);
    });

    it("brings a deleted repository back with its tag, unless its path is taken", async () => {
      const oci = ociClient(r.registryUrl, r.ownerToken);
      const org = r.server.org.groupUid;
      const x = await oci.pushImage("acme/gone", "x", buildImage("x"));
      const repo = await db()
        .selectFrom("repos")
        .select("uid")
        .where("name", "=", "gone")
        .executeTakeFirstOrThrow();
      assert.equal(
        (await oci.fetch("/v2/acme/gone/manifests/x", { method: "DELETE" })).status,
        202,
      );
      body(await api("DELETE", `/registry/v2/repos/${repo.uid}`));
      assert.equal((await oci.fetch("/v2/acme/gone/manifests/x")).status, 404);
      const back = body(await restore(org, { repository: "gone", name: "x", digest: x }));
      assert.equal(back.digest, x);
      assert.ok(back.uid.startsWith(`${repo.uid}/`));
      const again = body(await api("GET", `/registry/v2/repos/${repo.uid}`));
      assert.equal(again.name, "gone");
      const pulled = await oci.fetch("/v2/acme/gone/manifests/x");
      assert.equal(pulled.status, 200);
      assert.equal(pulled.headers.get("docker-content-digest"), x);

      // Deleted again, and the path taken by a new repo: the old one cannot come back.
      assert.equal(
        (await oci.fetch("/v2/acme/gone/manifests/x", { method: "DELETE" })).status,
        202,
      );
      body(await api("DELETE", `/registry/v2/repos/${repo.uid}`));
      const viewer = await holder(r.server, org, ["groups.list", "repo.list", "tag.list"]);
      const denied = await restore(org, { repository: "gone", name: "x", digest: x }, viewer.token);
      assert.ok(!denied.ok);
      assert.equal(denied.httpStatus, 403);
      await oci.pushImage("acme/gone", "y", buildImage("y"));
      // By name, the live repo is meant; by its uid, the deleted one.
      const live = await restore(org, { repository: "gone", name: "x", digest: x });
      assert.ok(!live.ok);
      assert.match(live.message, /never pointed to/);
      const taken = await restore(repo.uid, { name: "x", digest: x });
      assert.ok(!taken.ok);
      assert.equal(taken.code, 9);
      assert.match(taken.message, /another repo named "gone" exists now/);
    });

    it("refuses restoring an immutable tag", async () => {
      const oci = ociClient(r.registryUrl, r.ownerToken);
      await oci.pushImage("acme/app", "v9", buildImage("a"));
      await oci.pushImage("acme/app", "v9", buildImage("b"));
      body(
        await api("POST", `/registry/v2/tagPolicies/${r.server.org.groupUid}`, {
          pattern: "v*",
          kind: "TAG_POLICY_KIND_IMMUTABLE",
        }),
      );
      const refused = await restore((await tag("v9"))?.uid ?? "", { digest: a });
      assert.ok(!refused.ok);
      assert.equal(refused.code, 9);
      assert.match(refused.message, /tag "v9" is immutable.*cannot be restored/);
      assert.equal((await tag("v9"))?.digest, b);
    });
  });
}
