import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { eventRulesOf } from "../../src/events/index.ts";
import { AccountAssociationsService } from "../../src/gen/lading/iam/v2/account_associations_pb.js";
import { ExternalGroupRoleMappingsService } from "../../src/gen/lading/iam/v2/external_group_role_mappings_pb.js";
import { GroupInvitesService } from "../../src/gen/lading/iam/v2/group_invites_pb.js";
import { GroupsService } from "../../src/gen/lading/iam/v2/groups_pb.js";
import { IdentitiesService } from "../../src/gen/lading/iam/v2/identities_pb.js";
import { IdentityProvidersService } from "../../src/gen/lading/iam/v2/identity_providers_pb.js";
import { RoleBindingsService } from "../../src/gen/lading/iam/v2/role_bindings_pb.js";
import { RolesService } from "../../src/gen/lading/iam/v2/roles_pb.js";
import { TermsService } from "../../src/gen/lading/iam/v2/terms_pb.js";
import { AdvisoriesService } from "../../src/gen/lading/vulnerabilities/v2/advisories_pb.js";
import { advisoryYaml, detectedThenFixed } from "../support/advisory-yaml.ts";
import { grpcCaller } from "../support/api-client.ts";
import { eventLog, ok } from "../support/event-log.ts";
import { builtIn, providerBody } from "../support/federation-api.ts";
import { addIdentity } from "../support/iam-fixtures.ts";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

for (const kind of storeKinds) {
  describe(`outbox events of every API mutation [${kind}]`, () => {
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

    it("has recorded every event type of the IAM and security data RPCs", async () => {
      const services = [
        GroupsService,
        IdentitiesService,
        RolesService,
        RoleBindingsService,
        GroupInvitesService,
        TermsService,
        IdentityProvidersService,
        ExternalGroupRoleMappingsService,
        AccountAssociationsService,
        AdvisoriesService,
      ];
      const expected = services.flatMap((s) => [...eventRulesOf(s).values()].map((r) => r.type));
      assert.equal(expected.length, 25);
      const seen = new Set((await rows()).map((e) => e.type));
      assert.deepEqual(
        expected.filter((type) => !seen.has(type)),
        [],
      );
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
