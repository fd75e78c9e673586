import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { builtInRoleUid } from "../../src/auth/index.ts";
import { publicAdvisoriesGroupUid } from "../../src/vulnerabilities/index.ts";
import { type CliRunner, cliRunner } from "../cli/cli-support.ts";
import { advisoryYaml, detectedThenFixed } from "../support/advisory-yaml.ts";
import { restCall } from "../support/api-client.ts";
import { addIdentityProvider, signIn } from "../support/browser-sign-in.ts";
import { eventLog } from "../support/event-log.ts";
import { type EventSink, type Receipt, startEventSink } from "../support/event-sink.ts";
import { addIdentity, bind } from "../support/iam-fixtures.ts";
import { type Loose, ok } from "../support/matrix.ts";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import { browserClients, startBrowserProvider } from "../support/oidc-provider.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

/**
 * The write paths outside the API (first sign-in, `lading admin`, blob DELETE) record their
 * events in the change's transaction: a real server, a real subscription, a real sink that
 * verifies every delivery, and real clients (a browser sign-in, the CLI as a process, fetch).
 */
for (const kind of storeKinds) {
  describe(`events of changes made outside the API [${kind}]`, () => {
    let server: TestServer;
    let sink: EventSink;
    let cli: CliRunner;
    let provider: Awaited<ReturnType<typeof startBrowserProvider>>;
    let work: string;
    let org = "";
    /** An owner of acme besides the bootstrapped one, which the bootstrap test deletes. */
    let boss = { uid: "", token: "" };
    let storeFlags: string[] = [];
    const { rows, fresh } = eventLog(
      () => server,
      () => boss.uid,
    );
    const rest = (method: string, path: string, body?: Loose) =>
      restCall(server.apiUrl, boss.token, method, path, body);
    const body = (r: Receipt) => JSON.parse(r.body) as { actor: Loose; body: Loose };
    /** The receipts of `type` once `n` of them have arrived. */
    const received = async (type: string, n = 1) => {
      await sink.waitFor(() => sink.accepted(type).length >= n);
      return sink.accepted(type);
    };
    const adminRun = async (...args: string[]) => {
      const result = await cli.run(["admin", ...args, ...storeFlags, "--api-url", server.apiUrl]);
      assert.equal(result.code, 0, result.stderr);
      return result.stdout;
    };

    before(async () => {
      server = await startTestServer(kind, "acme", {
        outboundAllow: "127.0.0.1",
        eventsBackoffBase: "50ms",
      });
      org = server.org.groupUid;
      boss = await addIdentity(server, org);
      await bind(server, boss.uid, org, builtInRoleUid("owner"));
      sink = await startEventSink(server.apiUrl, org);
      ok(await rest("POST", `/events/v2/subscriptions/${org}`, { sink: sink.url }));
      await received("dev.lading.events.subscription.created.v1");
      provider = await startBrowserProvider({ redirectUri: `${server.apiUrl}/auth/v2/callback` });
      cli = await cliRunner();
      const options = server.store.options;
      storeFlags = options.databaseUrl
        ? ["--database-url", options.databaseUrl]
        : ["--data-dir", options.dataDir];
      work = await mkdtemp(join(tmpdir(), "lading-outside-api-"));
      await fresh();
    });
    after(async () => {
      await rm(work ?? "", { recursive: true, force: true });
      await cli?.cleanup();
      await provider?.close();
      await server?.close();
      await sink?.close();
    });

    it("a first sign-in records identity.created and role_binding.created as the API would", async () => {
      const web = await addIdentityProvider(
        server.lading.store.db,
        org,
        provider.issuer,
        browserClients.web,
      );
      provider.setAccount("alice", { name: "Alice", email: "alice@wonder.land" });
      const session = await signIn(server.apiUrl, web, "alice");
      const alice = createHash("sha256")
        .update(`${provider.issuer}\nalice`)
        .digest("hex")
        .slice(0, 40);
      assert.equal(session.identity, alice);

      const [created] = await received("dev.lading.iam.identity.created.v1");
      assert.equal(created.headers["ce-subject"], alice);
      // A signed-in user is a root identity: it reports to the group of its provider.
      assert.equal(created.headers["ce-group"], org);
      assert.equal(created.headers["ce-source"], `${server.apiUrl}/iam/v2/identities`);
      assert.equal(created.headers["ce-bodytype"], "lading.iam.v2.Identity");
      assert.equal(created.headers["ce-actor"], alice);
      const identity = body(created);
      assert.deepEqual(identity.actor, {
        subject: alice,
        act: { iss: provider.issuer, sub: "alice", aud: browserClients.web.clientId },
      });
      const got = ok(await rest("GET", `/iam/v2/identities/${alice}`));
      assert.deepEqual(Object.keys(identity.body).sort(), Object.keys(got).sort());
      for (const key of ["uid", "name", "email", "createTime", "claimMatch"])
        assert.deepEqual(identity.body[key], got[key], key);

      const [bound] = await received("dev.lading.iam.role_binding.created.v1");
      assert.equal(bound.headers["ce-group"], org);
      assert.equal(bound.headers["ce-bodytype"], "lading.iam.v2.RoleBinding");
      const binding = body(bound).body;
      assert.equal(bound.headers["ce-subject"], binding.uid);
      assert.deepEqual(binding, ok(await rest("GET", `/iam/v2/roleBindings/${binding.uid}`)));
      assert.equal(binding.role.uid, builtInRoleUid("viewer"));
      assert.equal(binding.identity.uid, alice);

      const outbox = await fresh();
      assert.deepEqual(
        outbox.map((e) => e.type),
        ["dev.lading.iam.identity.created.v1", "dev.lading.iam.role_binding.created.v1"],
      );
      // A second sign-in changes only lastSeenTime: no event.
      await signIn(server.apiUrl, web, "alice");
      assert.deepEqual(await fresh(), []);
    });

    it("sign-ins that add and remove mapped role bindings record them", async () => {
      const web = await addIdentityProvider(
        server.lading.store.db,
        org,
        provider.issuer,
        browserClients.web,
        "",
      );
      const time = new Date().toISOString();
      const mapping = `${web}/${"d".repeat(16)}`;
      await server.lading.store.db
        .insertInto("external_group_role_mappings")
        .values({
          uid: mapping,
          parent_uid: web,
          external_group_id: "devs",
          role_uid: builtInRoleUid("editor"),
          scope_uid: org,
          create_time: time,
          update_time: time,
        })
        .execute();
      provider.setAccount("dave", { groups: ["devs"] });
      const { identity } = await signIn(server.apiUrl, web, "dave");
      await received("dev.lading.iam.identity.created.v1", 2);
      const bound = (await received("dev.lading.iam.role_binding.created.v1", 2)).at(-1);
      const binding = body(bound as Receipt).body;
      assert.equal(binding.identity.uid, identity);
      assert.equal(binding.role.uid, builtInRoleUid("editor"));
      assert.equal(body(bound as Receipt).actor.subject, identity);
      await fresh();

      provider.setAccount("dave", {});
      await signIn(server.apiUrl, web, "dave");
      const [unbound] = await received("dev.lading.iam.role_binding.deleted.v1");
      assert.equal(unbound.headers["ce-subject"], binding.uid);
      assert.equal(unbound.headers["ce-group"], org);
      assert.equal(unbound.headers["ce-bodytype"], "lading.iam.v2.DeleteRoleBindingRequest");
      assert.deepEqual(body(unbound).body, { uid: binding.uid });
      assert.deepEqual(
        (await fresh()).map((e) => e.type),
        ["dev.lading.iam.role_binding.deleted.v1"],
      );
    });

    it("lading admin bootstrap records the group, identity and binding it creates, as the local administrator", async () => {
      const admin = { subject: "", act: { sub: "lading-admin" } };
      const beta = JSON.parse(await adminRun("bootstrap", "--org", "beta")) as Loose;
      const events = await fresh();
      assert.deepEqual(
        events.map((e) => [e.type, e.subject, e.group_uid]),
        [
          ["dev.lading.iam.group.created.v1", beta.groupUid, beta.groupUid],
          ["dev.lading.iam.identity.created.v1", beta.identityUid, beta.groupUid],
          ["dev.lading.iam.role_binding.created.v1", events[2]?.subject, beta.groupUid],
        ],
      );
      for (const e of events) {
        assert.deepEqual(e.data.actor, admin);
        assert.ok(e.source.startsWith(`${server.apiUrl}/iam/v2/`), e.source);
      }
      assert.equal(events[0].data.body.name, "beta");
      assert.equal(events[2].data.body.role.uid, builtInRoleUid("owner"));
      // Run again: nothing is created, nothing recorded.
      await adminRun("bootstrap", "--org", "beta");
      assert.deepEqual(await fresh(), []);

      // acme's owner deleted through the API; bootstrap re-creates it, and the acme
      // subscription hears of it.
      const owner = server.org.identityUid;
      const bindings = ok(await rest("GET", `/iam/v2/roleBindings?identity=${owner}`));
      for (const b of bindings.roleBindings as Loose[])
        ok(await rest("DELETE", `/iam/v2/roleBindings/${b.uid}`));
      ok(await rest("DELETE", `/iam/v2/identities/${owner}`));
      const again = JSON.parse(await adminRun("bootstrap", "--org", "acme")) as Loose;
      assert.equal(again.groupUid, org);
      assert.notEqual(again.identityUid, owner);
      const [identity] = (await received("dev.lading.iam.identity.created.v1", 3)).filter(
        (r) => r.headers["ce-subject"] === again.identityUid,
      );
      assert.ok(identity, "the re-created owner's identity.created was delivered");
      assert.equal(identity.headers["ce-group"], org);
      assert.equal(identity.headers["ce-actor"], undefined);
      assert.deepEqual(body(identity).actor, admin);
      assert.equal(body(identity).body.name, "owner");
      await sink.waitFor(() =>
        sink
          .accepted("dev.lading.iam.role_binding.created.v1")
          .some((r) => body(r).body.identity?.uid === again.identityUid),
      );
    });

    it("lading admin import records advisories.imported as ImportAdvisories does; metadata imports none", async () => {
      const dir = join(work, "advisories");
      await mkdir(dir, { recursive: true });
      const yaml = join(dir, "zlib.advisories.yaml");
      await writeFile(
        yaml,
        advisoryYaml("zlib", [
          {
            id: "CGA-2222-3333-4444",
            aliases: ["CVE-2030-0001"],
            events: detectedThenFixed("2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", "1.3-r1"),
          },
        ]),
      );
      await fresh();
      await adminRun("import", "advisories", "--group", org, dir);
      const [imported] = await received("dev.lading.vulnerabilities.advisories.imported.v1");
      assert.equal(imported.headers["ce-subject"], org);
      assert.equal(imported.headers["ce-group"], org);
      assert.equal(imported.headers["ce-source"], `${server.apiUrl}/vulnerabilities/v2/advisories`);
      assert.equal(
        imported.headers["ce-bodytype"],
        "lading.vulnerabilities.v2.ImportAdvisoriesResponse",
      );
      const { actor, body: counts } = body(imported);
      assert.deepEqual(actor, { subject: "", act: { sub: "lading-admin" } });
      assert.deepEqual(counts, {
        created: "1",
        updated: "0",
        withdrawn: "0",
        unchanged: "0",
        rejected: "0",
        rejections: [],
        documents: ["zlib"],
      });
      const [byAdmin] = await fresh();
      assert.equal(byAdmin.type, "dev.lading.vulnerabilities.advisories.imported.v1");
      // The same import through the API: the same event but for its actor.
      ok(
        await rest("POST", "/vulnerabilities/v2/advisories:import", {
          parent: org,
          format: "IMPORT_FORMAT_ADVISORIES",
          source: "advisories",
          documents: [{ name: "zlib.advisories.yaml", content: await readFile(yaml, "utf8") }],
        }),
      );
      const [byApi] = await fresh();
      const same = (e: typeof byApi) => [e.type, e.source, e.subject, e.group_uid, e.body_type];
      assert.deepEqual(same(byAdmin), same(byApi));
      assert.deepEqual(byApi.data.body, { ...counts, created: "0", unchanged: "1" });

      // Into the public advisories group, which the first such import creates.
      await adminRun("import", "advisories", dir);
      const events = await fresh();
      assert.deepEqual(
        events.map((e) => [e.type, e.subject, e.group_uid]),
        [
          ["dev.lading.iam.group.created.v1", publicAdvisoriesGroupUid, publicAdvisoriesGroupUid],
          [
            "dev.lading.vulnerabilities.advisories.imported.v1",
            publicAdvisoriesGroupUid,
            publicAdvisoriesGroupUid,
          ],
        ],
      );

      const kev = join(work, "kev.json");
      await writeFile(
        kev,
        JSON.stringify({
          title: "CISA Catalog of Known Exploited Vulnerabilities",
          catalogVersion: "2030.01.01",
          dateReleased: "2030-01-01T00:00:00.000Z",
          count: 1,
          vulnerabilities: [
            {
              cveID: "CVE-2030-0001",
              vendorProject: "zlib",
              product: "zlib",
              vulnerabilityName: "zlib overflow",
              dateAdded: "2030-01-01",
              shortDescription: "x",
              requiredAction: "patch",
              dueDate: "2030-02-01",
              knownRansomwareCampaignUse: "Unknown",
              notes: "",
            },
          ],
        }),
      );
      await adminRun("import", "kev", kev);
      assert.deepEqual(await fresh(), []);
    });

    it("a blob DELETE records blob.deleted in its transaction; an unknown blob records nothing", async () => {
      const token = await server.token(boss.uid, { audience: server.lading.registryAudience });
      const oci = ociClient(server.lading.registryUrl, token);
      const image = buildImage("blob-delete");
      await oci.pushImage("acme/blobby", "latest", image);
      await received("dev.lading.registry.push.v1");
      await fresh();
      const digest = [...image.blobs.keys()].find((d) => d !== image.descriptor.digest) ?? "";
      const res = await oci.fetch(`/v2/acme/blobby/blobs/${digest}`, {
        method: "DELETE",
        headers: { "user-agent": "blob-test/1.0" },
      });
      assert.equal(res.status, 202, await res.text());
      const [deleted] = await received("dev.lading.registry.blob.deleted.v1");
      const repo = (await rows()).find((e) => e.type === "dev.lading.registry.repo.created.v1");
      const repoUid = repo?.subject ?? "";
      assert.equal(deleted.headers["ce-subject"], repoUid);
      assert.equal(deleted.headers["ce-group"], org);
      assert.equal(deleted.headers["ce-source"], server.lading.registryUrl);
      assert.equal(deleted.headers["ce-digest"], digest);
      assert.equal(deleted.headers["ce-actor"], boss.uid);
      const { actor, body: removal } = body(deleted);
      assert.deepEqual(actor, { subject: boss.uid });
      assert.equal(removal.repository, "acme/blobby");
      assert.equal(removal.repo_id, repoUid);
      assert.equal(removal.digest, digest);
      assert.equal(removal.type, "blob");
      assert.match(removal.when, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}$/);
      assert.match(removal.remote_address, /127\.0\.0\.1/);
      assert.equal(removal.user_agent, "blob-test/1.0");
      assert.deepEqual(
        (await fresh()).map((e) => e.type),
        ["dev.lading.registry.blob.deleted.v1"],
      );

      const gone = await oci.fetch(`/v2/acme/blobby/blobs/${digest}`, { method: "DELETE" });
      assert.equal(gone.status, 404);
      await gone.body?.cancel();
      assert.deepEqual(await fresh(), []);
    });
  });
}
