import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { GroupsService } from "../../src/gen/lading/iam/v2/groups_pb.js";
import { createMetadataStore } from "../../src/store/metadata/index.ts";
import { advisoryYaml, detectedThenFixed } from "../support/advisory-yaml.ts";
import { grpcCaller, type Result, restCall } from "../support/api-client.ts";
import { builtIn, providerBody } from "../support/federation-api.ts";
import { addIdentity } from "../support/iam-fixtures.ts";
import type { Loose } from "../support/matrix.ts";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

/** An `events` row with its JSON columns parsed. */
interface EventRow {
  seq: number;
  type: string;
  source: string;
  subject: string;
  group_uid: string;
  body_type: string;
  extensions: Record<string, string>;
  data: { actor: Loose; body: Loose };
}

const ok = (result: Result): Loose => {
  if (!result.ok) assert.fail(`call failed: ${result.code} ${result.message}`);
  return result.body as Loose;
};

for (const kind of storeKinds) {
  describe(`outbox events of every mutation [${kind}]`, () => {
    let server: TestServer;
    let org = "";
    let me = "";
    let seen = 0;
    const call = (method: string, path: string, body?: JsonObject, token?: string) =>
      restCall(server.apiUrl, token ?? server.org.token, method, path, body);

    async function rows(): Promise<EventRow[]> {
      const all = await server.lading.store.db
        .selectFrom("events")
        .selectAll()
        .orderBy("seq")
        .execute();
      return all.map((r) => ({
        ...r,
        seq: Number(r.seq),
        extensions: JSON.parse(r.extensions),
        data: JSON.parse(r.data),
      }));
    }
    /** The events recorded since the last call. */
    async function fresh(): Promise<EventRow[]> {
      const all = (await rows()).filter((r) => r.seq > seen);
      if (all.length > 0) seen = all[all.length - 1].seq;
      return all;
    }
    /** The one event recorded since the last call, checked against what it must say. */
    async function only(type: string, subject: string, group: string, source: string) {
      const events = await fresh();
      assert.deepEqual(
        events.map((e) => e.type),
        [type],
      );
      const [event] = events;
      assert.equal(event.subject, subject, `${type} subject`);
      assert.equal(event.group_uid, group, `${type} group`);
      assert.equal(event.source, source, `${type} source`);
      assert.equal(event.data.actor.subject, me, `${type} actor`);
      return event;
    }
    const api = (path: string) => `${server.apiUrl}${path}`;

    before(async () => {
      server = await startTestServer(kind);
      org = server.org.groupUid;
      me = server.org.identityUid;
      await fresh();
    });
    after(() => server?.close());

    it("records IAM creates, updates and deletes with the response or request as body", async () => {
      const team = ok(await call("POST", `/iam/v2/groups/${org}`, { name: "team" }));
      const created = await only(
        "dev.lading.iam.group.created.v1",
        team.uid,
        org,
        api("/iam/v2/groups"),
      );
      assert.equal(created.body_type, "lading.iam.v2.Group");
      assert.deepEqual(created.data.body, team);
      assert.deepEqual(created.data.actor, {
        subject: me,
        act: { iss: server.apiUrl, sub: me, aud: server.apiUrl },
      });
      ok(
        await call("PATCH", `/iam/v2/groups/${team.uid}?updateMask=description`, {
          description: "d",
        }),
      );
      const updated = await only(
        "dev.lading.iam.group.updated.v1",
        team.uid,
        org,
        api("/iam/v2/groups"),
      );
      assert.equal(updated.data.body.description, "d");

      const robot = ok(await call("POST", `/iam/v2/identities/${team.uid}`, { name: "robot" }));
      await only(
        "dev.lading.iam.identity.created.v1",
        robot.uid,
        team.uid,
        api("/iam/v2/identities"),
      );
      ok(await call("PATCH", `/iam/v2/identities/${robot.uid}?updateMask=name`, { name: "bot" }));
      await only(
        "dev.lading.iam.identity.updated.v1",
        robot.uid,
        team.uid,
        api("/iam/v2/identities"),
      );

      const role = ok(
        await call("POST", `/iam/v2/roles/${team.uid}`, {
          name: "r",
          capabilities: ["CAP_GROUPS_LIST"],
        }),
      );
      await only("dev.lading.iam.role.created.v1", role.uid, team.uid, api("/iam/v2/roles"));
      ok(
        await call("PATCH", `/iam/v2/roles/${role.uid}?updateMask=description`, {
          description: "x",
        }),
      );
      await only("dev.lading.iam.role.updated.v1", role.uid, team.uid, api("/iam/v2/roles"));

      const rb = ok(
        await call("POST", `/iam/v2/roleBindings/${team.uid}`, {
          identityUid: robot.uid,
          roleUid: role.uid,
        }),
      );
      await only(
        "dev.lading.iam.role_binding.created.v1",
        rb.uid,
        team.uid,
        api("/iam/v2/roleBindings"),
      );
      ok(
        await call("PATCH", `/iam/v2/roleBindings/${rb.uid}?updateMask=roleUid`, {
          roleUid: builtIn.viewer,
        }),
      );
      await only(
        "dev.lading.iam.role_binding.updated.v1",
        rb.uid,
        team.uid,
        api("/iam/v2/roleBindings"),
      );
      ok(await call("DELETE", `/iam/v2/roleBindings/${rb.uid}`));
      const unbound = await only(
        "dev.lading.iam.role_binding.deleted.v1",
        rb.uid,
        team.uid,
        api("/iam/v2/roleBindings"),
      );
      assert.deepEqual(unbound.data.body, { uid: rb.uid });
      assert.equal(unbound.body_type, "lading.iam.v2.DeleteRoleBindingRequest");

      ok(await call("DELETE", `/iam/v2/roles/${role.uid}`));
      await only("dev.lading.iam.role.deleted.v1", role.uid, team.uid, api("/iam/v2/roles"));
      ok(await call("DELETE", `/iam/v2/identities/${robot.uid}`));
      await only(
        "dev.lading.iam.identity.deleted.v1",
        robot.uid,
        team.uid,
        api("/iam/v2/identities"),
      );
      ok(await call("DELETE", `/iam/v2/groups/${team.uid}`));
      await only("dev.lading.iam.group.deleted.v1", team.uid, org, api("/iam/v2/groups"));
    });

    it("records invites, their acceptance and terms without the invite code", async () => {
      const invite = ok(
        await call("POST", `/iam/v2/groupInvites/${org}`, {
          roleUid: builtIn.viewer,
          ttl: "3600s",
        }),
      );
      const made = await only(
        "dev.lading.iam.group_invite.created.v1",
        invite.uid,
        org,
        api("/iam/v2/groupInvites"),
      );
      assert.deepEqual(made.data.body, { uid: invite.uid, expirationTime: invite.expirationTime });
      const guest = await addIdentity(server, "", "guest@example.com");
      const accepted = ok(
        await call("POST", "/iam/v2/groupInvites:accept", { code: invite.code }, guest.token),
      );
      const events = await fresh();
      assert.deepEqual(
        events.map((e) => [e.type, e.subject, e.group_uid, e.data.actor.subject]),
        [["dev.lading.iam.group_invite.accepted.v1", accepted.roleBinding.uid, org, guest.uid]],
      );
      assert.equal(events[0].source, api("/iam/v2/groupInvites"));
      ok(await call("DELETE", `/iam/v2/groupInvites/${invite.uid}`));
      await only(
        "dev.lading.iam.group_invite.deleted.v1",
        invite.uid,
        org,
        api("/iam/v2/groupInvites"),
      );

      ok(await call("POST", `/iam/v2/terms/${org}`, { documentIds: ["tos-2024"] }));
      const terms = await only("dev.lading.iam.terms.accepted.v1", org, org, api("/iam/v2/terms"));
      assert.deepEqual(terms.data.body, { group: org, documentIds: ["tos-2024"] });
      const all = JSON.stringify(await rows());
      assert.ok(!all.includes(invite.code), "no invite code in any event");
      assert.ok(!all.includes(invite.keyId), "no invite key id in any event");
    });

    it("records federation changes without the client secret", async () => {
      const idp = ok(await call("POST", `/iam/v2/identityProviders/${org}`, providerBody()));
      const made = await only(
        "dev.lading.iam.identity_provider.created.v1",
        idp.uid,
        org,
        api("/iam/v2/identityProviders"),
      );
      assert.equal(made.data.body.oidc.clientId, "lading");
      ok(
        await call("PATCH", `/iam/v2/identityProviders/${idp.uid}`, {
          oidc: { clientSecret: "s3cret-2" },
        }),
      );
      await only(
        "dev.lading.iam.identity_provider.updated.v1",
        idp.uid,
        org,
        api("/iam/v2/identityProviders"),
      );
      const mapping = ok(
        await call("POST", `/iam/v2/externalGroupRoleMappings/${idp.uid}`, {
          externalGroupId: "engineering",
          roleUid: builtIn.viewer,
        }),
      );
      const path = api("/iam/v2/externalGroupRoleMappings");
      await only("dev.lading.iam.external_group_role_mapping.created.v1", mapping.uid, org, path);
      ok(await call("DELETE", `/iam/v2/externalGroupRoleMappings/${mapping.uid}`));
      await only("dev.lading.iam.external_group_role_mapping.deleted.v1", mapping.uid, org, path);
      ok(await call("DELETE", `/iam/v2/identityProviders/${idp.uid}`));
      await only(
        "dev.lading.iam.identity_provider.deleted.v1",
        idp.uid,
        org,
        api("/iam/v2/identityProviders"),
      );

      const aa = api("/iam/v2/accountAssociations");
      const amazon = { account: "123456789012" };
      ok(await call("POST", `/iam/v2/accountAssociations/${org}`, { name: "aws", amazon }));
      await only("dev.lading.iam.account_association.created.v1", org, org, aa);
      ok(await call("PATCH", `/iam/v2/accountAssociations/${org}?updateMask=name`, { name: "n" }));
      await only("dev.lading.iam.account_association.updated.v1", org, org, aa);
      ok(await call("DELETE", `/iam/v2/accountAssociations/${org}`));
      await only("dev.lading.iam.account_association.deleted.v1", org, org, aa);
      assert.ok(!JSON.stringify(await rows()).includes("s3cret"), "no client secret in any event");
    });

    it("records a create over gRPC like one over REST", async () => {
      const grpc = grpcCaller(server.apiUrl, server.org.token);
      const made = ok(
        await grpc(GroupsService, "createGroup", { parent: org, group: { name: "g" } }),
      );
      const event = await only(
        "dev.lading.iam.group.created.v1",
        made.uid,
        org,
        api("/iam/v2/groups"),
      );
      assert.deepEqual(event.data.body, made);
    });

    it("records an advisories import on its group", async () => {
      const content = advisoryYaml("pkg", [
        {
          id: "CGA-2222-2222-2222",
          aliases: ["CVE-2024-0001"],
          events: detectedThenFixed("2024-05-01T00:00:00Z", "2024-05-02T00:00:00Z", "1.0-r1"),
        },
      ]);
      ok(
        await call("POST", "/vulnerabilities/v2/advisories:import", {
          parent: org,
          format: "IMPORT_FORMAT_ADVISORIES",
          source: "ci",
          documents: [{ name: "pkg.advisories.yaml", content }],
        }),
      );
      const event = await only(
        "dev.lading.vulnerabilities.advisories.imported.v1",
        org,
        org,
        api("/vulnerabilities/v2/advisories"),
      );
      assert.equal(event.data.body.created, "1");
    });

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

    it("records nothing for a mutation that fails", async () => {
      const before = (await rows()).length;
      const group = ok(await call("POST", `/iam/v2/groups/${org}`, { name: "once" }));
      await fresh();
      const again = await call("POST", `/iam/v2/groups/${org}`, { name: "once" });
      assert.equal(again.ok, false);
      const denied = await call("DELETE", `/iam/v2/groups/${group.uid}`, undefined, "not-a-token");
      assert.equal(denied.ok, false);
      assert.deepEqual(await fresh(), []);
      assert.equal((await rows()).length, before + 1);
    });

    it("serves concurrent mutations, reads and pulls without deadlock", async () => {
      const token = await server.token(me, { audience: server.lading.registryAudience });
      const oci = ociClient(server.lading.registryUrl, token);
      await oci.pushImage("acme/busy", "latest", buildImage("busy"));
      const all = await rows();
      const groupsBefore = all.filter((e) => e.type === "dev.lading.iam.group.created.v1").length;
      const pullsBefore = all.filter((e) => e.type === "dev.lading.registry.pull.v1").length;
      const jobs: Promise<unknown>[] = [];
      for (let i = 0; i < 30; i++) {
        jobs.push(call("POST", `/iam/v2/groups/${org}`, { name: `c${i}` }).then(ok));
        jobs.push(call("GET", `/iam/v2/groups?uidp.children_of=${org}`).then(ok));
        jobs.push(
          oci.fetch("/v2/acme/busy/manifests/latest").then((res) => assert.equal(res.status, 200)),
        );
      }
      const stuck = new Promise((_, reject) =>
        setTimeout(() => reject(new Error("deadlock")), 30_000).unref(),
      );
      await Promise.race([Promise.all(jobs), stuck]);
      // Counted over the whole table: on PostgreSQL, seq order is not commit order across
      // concurrent transactions, so "rows after the last seq seen" could miss some.
      const count = async (type: string) => (await rows()).filter((e) => e.type === type).length;
      for (
        let i = 0;
        i < 50 && (await count("dev.lading.registry.pull.v1")) < pullsBefore + 30;
        i++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(await count("dev.lading.iam.group.created.v1"), groupsBefore + 30);
      assert.equal(await count("dev.lading.registry.pull.v1"), pullsBefore + 30);
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
