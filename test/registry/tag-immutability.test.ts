import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { TagsService } from "../../src/gen/lading/registry/v2/tags_pb.js";
import { grpcCaller, type Result, restCall } from "../support/api-client.ts";
import { addIdentity, holder } from "../support/iam-fixtures.ts";
import { ociClient } from "../support/oci-client.ts";
import { buildImage, writeLayout } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const run = promisify(execFile);
const pushCapabilities = [
  "groups.list",
  "repo.list",
  "repo.create",
  "repo.update",
  "repo.blobs.get",
  "manifest.list",
  "manifest.create",
  "manifest.delete",
  "tag.list",
  "tag.create",
  "tag.delete",
];

const body = (r: Result) => {
  assert.ok(r.ok, `expected success, got ${JSON.stringify(r)}`);
  return r.body as Record<string, unknown>;
};

for (const pair of registryPairs) {
  describe(`tag immutability [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let org: string;
    let repoUid: string;
    let first: string;
    let pusher: { api: string; registry: string };
    const api = (token: string, method: string, path: string, json?: object) =>
      restCall(r.server.apiUrl, token, method, path, json as never);
    const owner = () => r.server.org.token;
    const tagUid = async (name: string) => {
      const row = await r.server.lading.store.db
        .selectFrom("tags")
        .select(["uid", "digest"])
        .where("parent_uid", "=", repoUid)
        .where("name", "=", name)
        .executeTakeFirst();
      return row;
    };

    before(async () => {
      r = await startRegistryServer(pair);
      org = r.server.org.groupUid;
      first = await ociClient(r.registryUrl, r.ownerToken).pushImage(
        "acme/app",
        "v1",
        buildImage("one"),
      );
      const repo = await r.server.lading.store.db
        .selectFrom("repos")
        .select("uid")
        .where("name", "=", "app")
        .executeTakeFirstOrThrow();
      repoUid = repo.uid;
      const who = await holder(r.server, org, pushCapabilities);
      pusher = {
        api: who.token,
        registry: await r.server.token(who.uid, { audience: r.host }),
      };
    });
    after(() => r?.close());

    it("lets an administrator create, list and delete rules, and refuses pushers and outsiders", async () => {
      const rule = { pattern: "v*", kind: "TAG_POLICY_KIND_IMMUTABLE" };
      const denied = await api(pusher.api, "POST", `/registry/v2/tagPolicies/${org}`, rule);
      assert.ok(!denied.ok);
      assert.equal(denied.httpStatus, 403);
      const created = body(await api(owner(), "POST", `/registry/v2/tagPolicies/${org}`, rule));
      assert.equal(created.pattern, "v*");
      assert.equal(created.kind, "TAG_POLICY_KIND_IMMUTABLE");
      assert.ok(String(created.uid).startsWith(`${org}/`));
      // Pushers see the rules that bind them but cannot lift them.
      const seen = body(
        await api(pusher.api, "GET", `/registry/v2/tagPolicies?uidp.children_of=${org}`),
      );
      assert.deepEqual(
        (seen.tagPolicies as { uid: string }[]).map((p) => p.uid),
        [created.uid],
      );
      const lift = await api(pusher.api, "DELETE", `/registry/v2/tagPolicies/${created.uid}`);
      assert.ok(!lift.ok);
      assert.equal(lift.httpStatus, 403);
      const outsider = await addIdentity(r.server, "");
      const hidden = body(await api(outsider.token, "GET", "/registry/v2/tagPolicies"));
      assert.deepEqual(hidden.tagPolicies ?? [], []);
      const unseen = await api(outsider.token, "GET", `/registry/v2/tagPolicies/${created.uid}`);
      assert.ok(!unseen.ok);
      assert.equal(unseen.httpStatus, 404);
      const anonymous = await api("", "GET", "/registry/v2/tagPolicies");
      assert.ok(!anonymous.ok);
      assert.equal(anonymous.httpStatus, 401);
    });

    it("refuses patterns that are not tag globs, and out-of-range counts", async () => {
      for (const [policy, field] of [
        [{ pattern: "v[0-9]", kind: "TAG_POLICY_KIND_IMMUTABLE" }, "tag_policy.pattern"],
        [{ pattern: "x".repeat(129), kind: "TAG_POLICY_KIND_IMMUTABLE" }, "tag_policy.pattern"],
        [{ pattern: "v*" }, "tag_policy.kind"],
        [{ pattern: "v*", kind: "TAG_POLICY_KIND_KEEP_NEWEST" }, "tag_policy.count"],
      ] as const) {
        const res = await api(owner(), "POST", `/registry/v2/tagPolicies/${org}`, policy);
        assert.ok(!res.ok);
        assert.equal(res.httpStatus, 400);
        assert.match(JSON.stringify(res.details), new RegExp(field.replace(".", "\\.")));
      }
    });

    it("refuses moving or deleting a matching tag on the registry with DENIED, and allows the rest", async () => {
      const client = ociClient(r.registryUrl, pusher.registry);
      const other = buildImage("two");
      for (const blob of other.blobs.values()) await client.pushBlob("acme/app", blob);
      const moved = await client.putManifest("acme/app", "v1", other.manifest);
      assert.equal(moved.status, 403);
      const refusal = (await moved.json()) as { errors: { code: string; message: string }[] };
      assert.equal(refusal.errors[0].code, "DENIED");
      assert.match(
        refusal.errors[0].message,
        /tag "v1" is immutable .*pattern "v\*".*cannot be moved/,
      );
      assert.equal((await tagUid("v1"))?.digest, first);
      for (const reference of ["v1", first]) {
        const res = await client.fetch(`/v2/acme/app/manifests/${reference}`, { method: "DELETE" });
        assert.equal(res.status, 403, reference);
        assert.equal(
          ((await res.json()) as { errors: { code: string }[] }).errors[0].code,
          "DENIED",
        );
      }
      assert.equal((await tagUid("v1"))?.digest, first);
      // Re-pushing the same digest moves nothing; a new matching tag may be created once.
      assert.equal(
        (await client.putManifest("acme/app", "v1", buildImage("one").manifest)).status,
        201,
      );
      assert.equal((await client.putManifest("acme/app", "v2", other.manifest)).status, 201);
      assert.equal((await client.putManifest("acme/app", "dev", other.manifest)).status, 201);
      const third = buildImage("three");
      for (const blob of third.blobs.values()) await client.pushBlob("acme/app", blob);
      assert.equal((await client.putManifest("acme/app", "dev", third.manifest)).status, 201);
      const gone = await client.fetch("/v2/acme/app/manifests/dev", { method: "DELETE" });
      assert.equal(gone.status, 202);
    });

    it("answers FAILED_PRECONDITION on the API, over REST and gRPC", async () => {
      const v1 = await tagUid("v2");
      assert.ok(v1);
      const move = await api(pusher.api, "POST", `/registry/v2/tags/${repoUid}`, {
        name: "v2",
        digest: first,
      });
      assert.ok(!move.ok);
      assert.equal(move.httpStatus, 400);
      assert.equal(move.code, 9);
      assert.match(move.message, /tag "v2" is immutable/);
      const grpc = grpcCaller(r.server.apiUrl, pusher.api);
      const del = await grpc(TagsService, "deleteTag", { uid: v1.uid });
      assert.ok(!del.ok);
      assert.equal(del.code, 9);
      assert.match(del.message, /cannot be deleted/);
      assert.ok(await tagUid("v2"));
    });

    it("applies a repo's own rule to that repo only, and lifts it when deleted", async () => {
      const client = ociClient(r.registryUrl, r.ownerToken);
      const a = buildImage("a");
      const b = buildImage("b");
      await client.pushImage("acme/app", "1.2.3", a);
      await client.pushImage("acme/other", "1.2.3", a);
      const rule = body(
        await api(owner(), "POST", `/registry/v2/tagPolicies/${repoUid}`, {
          pattern: "1.2.*",
          kind: "TAG_POLICY_KIND_IMMUTABLE",
        }),
      );
      for (const blob of b.blobs.values()) {
        await client.pushBlob("acme/app", blob);
        await client.pushBlob("acme/other", blob);
      }
      assert.equal((await client.putManifest("acme/app", "1.2.3", b.manifest)).status, 403);
      assert.equal((await client.putManifest("acme/app", "1.3.0", b.manifest)).status, 201);
      assert.equal((await client.putManifest("acme/other", "1.2.3", b.manifest)).status, 201);
      body(await api(owner(), "DELETE", `/registry/v2/tagPolicies/${rule.uid}`));
      assert.equal((await client.putManifest("acme/app", "1.2.3", b.manifest)).status, 201);
    });

    it("refuses skopeo copying over and deleting an immutable tag", async () => {
      const creds = ["--creds", `_token:${pusher.registry}`, "--tls-verify=false"];
      const ref = `docker://${r.host}/acme/app:v1`;
      const layout = writeLayout("x", [buildImage("from skopeo")]);
      await assert.rejects(
        run("skopeo", [
          "copy",
          `oci:${layout}:x`,
          ref,
          "--dest-creds",
          `_token:${pusher.registry}`,
          "--dest-tls-verify=false",
        ]),
        (e: { stderr?: string }) =>
          /immutable/.test(e.stderr ?? "") && /denied/i.test(e.stderr ?? ""),
      );
      await assert.rejects(run("skopeo", ["delete", ...creds, ref]), (e: { stderr?: string }) =>
        /denied|immutable/i.test(e.stderr ?? ""),
      );
      assert.equal((await tagUid("v1"))?.digest, first);
    });
  });
}
