import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { eventRulesOf } from "../../src/events/index.ts";
import { ReposService } from "../../src/gen/lading/registry/v2/repos_pb.js";
import { TagPoliciesService } from "../../src/gen/lading/registry/v2/tag_policies_pb.js";
import { TagsService } from "../../src/gen/lading/registry/v2/tags_pb.js";
import { createMetadataStore } from "../../src/store/metadata/index.ts";
import { type EventRow, eventLog, ok } from "../support/event-log.ts";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

for (const kind of storeKinds) {
  describe(`outbox events of the registry [${kind}]`, () => {
    let server: TestServer;
    let org = "";
    let me = "";
    const { rows, fresh, only, call } = eventLog(
      () => server,
      () => me,
    );
    const api = (path: string) => `${server.apiUrl}${path}`;

    before(async () => {
      server = await startTestServer(kind);
      org = server.org.groupUid;
      me = server.org.identityUid;
      await fresh();
    });
    after(() => server?.close());

    it("records the registry API and the registry protocol: push, tags, deletes, pulls", async () => {
      const repo = ok(await call("POST", `/registry/v2/repos/${org}`, { name: "app" }));
      const repos = api("/registry/v2/repos");
      await only("dev.lading.registry.repo.created.v1", repo.uid, org, repos);
      ok(
        await call("PATCH", `/registry/v2/repos/${repo.uid}?updateMask=description`, {
          description: "d",
        }),
      );
      await only("dev.lading.registry.repo.updated.v1", repo.uid, org, repos);

      const registryUrl = server.lading.registryUrl;
      const token = await server.token(me, { audience: server.lading.registryAudience });
      const oci = ociClient(registryUrl, token);
      const first = await oci.pushImage("acme/app", "v1", buildImage("one"));
      let events = await fresh();
      assert.deepEqual(
        events.map((e) => e.type),
        ["dev.lading.registry.push.v1", "dev.lading.registry.tag.created.v1"],
      );
      const [push, tagged] = events;
      assert.equal(push.subject, repo.uid);
      assert.equal(push.group_uid, org);
      assert.equal(push.source, registryUrl);
      assert.deepEqual(push.extensions, {
        digest: first,
        mediatype: "application/vnd.oci.image.manifest.v1+json",
      });
      assert.equal(push.data.actor.subject, me);
      const { when, remote_address, user_agent, ...pushed } = push.data.body;
      assert.deepEqual(pushed, {
        repository: "acme/app",
        repo_id: repo.uid,
        tag: "v1",
        digest: first,
        type: "manifest",
      });
      assert.match(when, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
      assert.equal(remote_address, "127.0.0.1");
      assert.equal(typeof user_agent, "string");
      assert.equal(tagged.data.body.name, "v1");
      assert.equal(tagged.data.body.digest, first);
      assert.equal(tagged.group_uid, org);

      // The same digest again moves nothing: a push event only.
      await oci.pushImage("acme/app", "v1", buildImage("one"));
      events = await fresh();
      assert.deepEqual(
        events.map((e) => [e.type, e.data.body.tag_previous_digest]),
        [["dev.lading.registry.push.v1", first]],
      );
      const second = await oci.pushImage("acme/app", "v1", buildImage("two"));
      events = await fresh();
      assert.deepEqual(
        events.map((e) => [e.type, e.data.body.tag_previous_digest ?? e.data.body.digest]),
        [
          ["dev.lading.registry.push.v1", first],
          ["dev.lading.registry.tag.updated.v1", second],
        ],
      );

      const tags = api("/registry/v2/tags");
      const t2 = ok(
        await call("POST", `/registry/v2/tags/${repo.uid}`, { name: "t2", digest: first }),
      );
      await only("dev.lading.registry.tag.created.v1", t2.uid, org, tags);
      ok(
        await call("PATCH", `/registry/v2/tags/${t2.uid}?updateMask=deprecated`, {
          deprecated: true,
        }),
      );
      await only("dev.lading.registry.tag.updated.v1", t2.uid, org, tags);
      ok(await call("DELETE", `/registry/v2/tags/${t2.uid}`));
      await only("dev.lading.registry.tag.deleted.v1", t2.uid, org, tags);

      // Pulls: buffered, then written together.
      for (let i = 0; i < 5; i++)
        assert.equal((await oci.fetch("/v2/acme/app/manifests/v1")).status, 200);
      const head = await oci.fetch(`/v2/acme/app/manifests/${second}`, { method: "HEAD" });
      assert.equal(head.status, 200);
      let pulls: EventRow[] = [];
      for (let i = 0; i < 40 && pulls.length < 6; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        pulls = (await rows()).filter((e) => e.type === "dev.lading.registry.pull.v1");
      }
      assert.equal(pulls.length, 6);
      assert.deepEqual(
        pulls.map((p) => [
          p.data.body.method,
          p.data.body.tag ?? "",
          p.data.body.digest,
          p.subject,
        ]),
        [
          ...Array.from({ length: 5 }, () => ["GET", "v1", second, repo.uid]),
          ["HEAD", "", second, repo.uid],
        ],
      );
      assert.equal(pulls[0].group_uid, org);
      await fresh();

      const v1 = await server.lading.store.db
        .selectFrom("tags")
        .select("uid")
        .where("name", "=", "v1")
        .executeTakeFirstOrThrow();
      assert.equal(
        (await oci.fetch("/v2/acme/app/manifests/v1", { method: "DELETE" })).status,
        202,
      );
      await only("dev.lading.registry.tag.deleted.v1", v1.uid, org, registryUrl);
      const back = ok(
        await call("POST", `/registry/v2/tags/${v1.uid}:restore`, { digest: second }),
      );
      assert.equal(back.uid, v1.uid);
      await only("dev.lading.registry.tag.restored.v1", v1.uid, org, tags);
      ok(await call("DELETE", `/registry/v2/tags/${v1.uid}`));
      await only("dev.lading.registry.tag.deleted.v1", v1.uid, org, tags);
      const policy = ok(
        await call("POST", `/registry/v2/tagPolicies/${org}`, {
          pattern: "v*",
          kind: "TAG_POLICY_KIND_IMMUTABLE",
        }),
      );
      ok(await call("DELETE", `/registry/v2/tagPolicies/${policy.uid}`));
      assert.deepEqual(
        (await fresh()).map((e) => [e.type, e.subject]),
        [
          ["dev.lading.registry.tag_policy.created.v1", policy.uid],
          ["dev.lading.registry.tag_policy.deleted.v1", policy.uid],
        ],
      );
      await oci.fetch(`/v2/acme/app/manifests/${second}?tag=again`, {
        method: "PUT",
        body: new Uint8Array(buildImage("two").manifest),
        headers: { "content-type": "application/vnd.oci.image.manifest.v1+json" },
      });
      const again = await fresh();
      assert.deepEqual(
        again.map((e) => e.type),
        ["dev.lading.registry.push.v1", "dev.lading.registry.tag.created.v1"],
      );
      const gone = await oci.fetch(`/v2/acme/app/manifests/${second}`, { method: "DELETE" });
      assert.equal(gone.status, 202);
      events = await fresh();
      assert.deepEqual(
        events.map((e) => [e.type, e.subject]),
        [
          ["dev.lading.registry.manifest.deleted.v1", repo.uid],
          ["dev.lading.registry.tag.deleted.v1", again[1].subject],
        ],
      );
      assert.equal(events[0].data.body.digest, second);

      ok(await call("DELETE", `/registry/v2/repos/${repo.uid}`));
      await only("dev.lading.registry.repo.deleted.v1", repo.uid, org, repos);
    });

    it("has recorded every registry event type", async () => {
      const api = [ReposService, TagsService, TagPoliciesService].flatMap((service) =>
        [...eventRulesOf(service).values()].map((r) => r.type),
      );
      const protocol = ["push", "pull", "manifest.deleted"].map(
        (t) => `dev.lading.registry.${t}.v1`,
      );
      const seen = new Set((await rows()).map((e) => e.type));
      assert.equal(api.length, 9);
      assert.deepEqual(
        [...api, ...protocol].filter((type) => !seen.has(type)),
        [],
      );
    });

    it("sends tag events of a repo in a group to that group, push events to the organisation", async () => {
      const team = ok(await call("POST", `/iam/v2/groups/${org}`, { name: "squad" }));
      const repo = ok(await call("POST", `/registry/v2/repos/${team.uid}`, { name: "squad-app" }));
      await fresh();
      const token = await server.token(me, { audience: server.lading.registryAudience });
      await ociClient(server.lading.registryUrl, token).pushImage(
        "acme/squad-app",
        "v1",
        buildImage("s"),
      );
      const events = await fresh();
      assert.deepEqual(
        events.map((e) => [e.type, e.group_uid]),
        [
          ["dev.lading.registry.push.v1", org],
          ["dev.lading.registry.tag.created.v1", team.uid],
        ],
      );
      assert.equal(events[0].subject, repo.uid);
    });
  });
}

describe("--events-pulls false", () => {
  it("answers pulls without recording them, and still records pushes and the repo they made", async () => {
    const server = await startTestServer("sqlite", "acme", { eventsPulls: "false" });
    try {
      const token = await server.token(server.org.identityUid, {
        audience: server.lading.registryAudience,
      });
      const oci = ociClient(server.lading.registryUrl, token);
      await oci.pushImage("acme/quiet", "latest", buildImage("quiet"));
      for (let i = 0; i < 3; i++) {
        assert.equal((await oci.fetch("/v2/acme/quiet/manifests/latest")).status, 200);
      }
      // Two flush windows: pulls would have been written by now.
      await new Promise((resolve) => setTimeout(resolve, 600));
      const events = await server.lading.store.db
        .selectFrom("events")
        .selectAll()
        .where("type", "like", "dev.lading.registry.%")
        .orderBy("seq")
        .execute();
      // The first blob upload made the repo.
      assert.deepEqual(
        events.map((e) => e.type),
        [
          "dev.lading.registry.repo.created.v1",
          "dev.lading.registry.push.v1",
          "dev.lading.registry.tag.created.v1",
        ],
      );
      const repo = await server.lading.store.db
        .selectFrom("repos")
        .selectAll()
        .where("name", "=", "quiet")
        .executeTakeFirstOrThrow();
      const [made] = events;
      assert.equal(made.subject, repo.uid);
      assert.equal(made.group_uid, server.org.groupUid);
      assert.equal(made.source, server.lading.registryUrl);
      assert.equal(made.body_type, "lading.registry.v2.Repo");
      assert.deepEqual(JSON.parse(made.data), {
        actor: { subject: server.org.identityUid },
        body: {
          uid: repo.uid,
          name: "quiet",
          description: "",
          readme: "",
          createTime: repo.create_time,
          updateTime: repo.update_time,
        },
      });
    } finally {
      await server.close();
    }
  });
});

describe("pull events on shutdown", () => {
  it("writes the buffered pull events before the store closes", async () => {
    const server = await startTestServer("sqlite");
    const token = await server.token(server.org.identityUid, {
      audience: server.lading.registryAudience,
    });
    const oci = ociClient(server.lading.registryUrl, token);
    await oci.pushImage("acme/last", "latest", buildImage("last"));
    for (let i = 0; i < 4; i++) {
      assert.equal((await oci.fetch("/v2/acme/last/manifests/latest")).status, 200);
    }
    // At once: well within the first flush window.
    await server.lading.close();
    const store = createMetadataStore(server.store.options);
    try {
      const pulls = await store.db
        .selectFrom("events")
        .select("id")
        .where("type", "=", "dev.lading.registry.pull.v1")
        .execute();
      assert.equal(pulls.length, 4);
    } finally {
      await store.close();
      await server.store.drop();
    }
  });
});
