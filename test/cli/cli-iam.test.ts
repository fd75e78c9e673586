import assert from "node:assert/strict";
import { createServer } from "node:net";
import { after, before, describe, it } from "node:test";
import type { TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";
import { type CliRunner, type CliServer, startCliServer } from "./cli-support.ts";

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

for (const kind of storeKinds) {
  describe(`lading iam (CLI process) [${kind}]`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let org: string;
    let fixture: CliServer;
    before(async () => {
      fixture = await startCliServer(kind);
      ({ server, cli } = fixture);
      org = server.org.groupUid;
    });
    after(() => fixture.close());

    it("creates, lists, gets, updates and deletes groups in table, json and id output", async () => {
      const created = JSON.parse(
        await cli.ok("iam", "groups", "create", "--parent", org, "--name", "team-a", "-o", "json"),
      );
      assert.equal(created.name, "team-a");
      assert.match(created.uid, new RegExp(`^${org}/[0-9a-f]{16}$`));
      assert.deepEqual(
        (await cli.ok("-o", "id", "iam", "groups", "list", "--parent", org)).trim().split("\n"),
        [created.uid],
      );
      const table = (await cli.ok("iam", "groups", "list", "--under", org)).split("\n");
      assert.match(table[0], /^UID\s+NAME\s+DESCRIPTION\s+CREATED$/);
      assert.match(
        table[1],
        new RegExp(`^${created.uid}\\s+team-a\\s+-\\s+${created.createTime}$`),
      );
      const got = JSON.parse(await cli.ok("iam", "groups", "get", created.uid, "--output=json"));
      assert.deepEqual(got, created);
      const updated = JSON.parse(
        await cli.ok("iam", "groups", "update", created.uid, "--description", "Team A", "-ojson"),
      );
      assert.equal(updated.description, "Team A");
      assert.equal(updated.name, "team-a");
      const nothing = await cli.run(["iam", "groups", "update", created.uid]);
      assert.equal(nothing.code, 2);
      assert.match(nothing.stderr, /nothing to update/);
      assert.equal(
        await cli.ok("iam", "groups", "delete", created.uid),
        `deleted ${created.uid}\n`,
      );
      const gone = await cli.run(["iam", "groups", "get", created.uid]);
      assert.equal(gone.code, 1);
      assert.match(gone.stderr, /^lading: /);
    });

    it("manages roles, identities and role bindings; deleting an identity removes its bindings", {
      timeout: 300_000,
    }, async () => {
      const role = JSON.parse(
        await cli.ok(
          ...["iam", "roles", "create", "--parent", org, "--name", "reader"],
          ...["--capability", "repo.list", "--capability", "tag.list", "-o", "json"],
        ),
      );
      assert.deepEqual(role.capabilities, ["CAP_REPO_LIST", "CAP_TAG_LIST"]);
      const roleUpdate = [
        "iam",
        "roles",
        "update",
        role.uid,
        "--capability",
        "repo.list",
        "-o",
        "json",
      ];
      assert.deepEqual(JSON.parse(await cli.ok(...roleUpdate)).capabilities, ["CAP_REPO_LIST"]);
      const identity = (
        await cli.ok(
          ...["iam", "identities", "create", "--parent", org, "--name", "ci"],
          ...["--issuer", "https://issuer.example", "--subject", "repo:acme/app", "-o", "id"],
        )
      ).trim();
      assert.match(identity, new RegExp(`^${org}/[0-9a-f]{16}$`));
      const renamed = JSON.parse(
        await cli.ok(
          "iam",
          "identities",
          "update",
          identity,
          "--subject",
          "repo:acme/b",
          "-o",
          "json",
        ),
      );
      assert.equal(renamed.claimMatch.subject, "repo:acme/b");
      assert.equal(renamed.claimMatch.issuer, "https://issuer.example");
      const listed = await cli.ok("iam", "identities", "list", "--parent", org, "--name", "ci");
      assert.match(listed, /ci\s+https:\/\/issuer\.example\s+repo:acme\/b/);

      const byName = JSON.parse(
        await cli.ok(
          ...["iam", "role-bindings", "create", "--group", org, "--identity", identity],
          ...["--role", "viewer", "-o", "json"],
        ),
      );
      assert.equal(byName.role.name, "viewer");
      const byUid = (
        await cli.ok(
          ...["iam", "role-bindings", "create", "--group", org],
          ...["--identity", identity, "--role", role.uid, "-o", "id"],
        )
      ).trim();
      const bindings = await cli.ok(
        "iam",
        "role-bindings",
        "list",
        "--identity",
        identity,
        "-o",
        "id",
      );
      assert.deepEqual(bindings.trim().split("\n").sort(), [byName.uid, byUid].sort());
      const bindingTable = await cli.ok("iam", "role-bindings", "get", byUid);
      assert.match(bindingTable, /UID\s+IDENTITY\s+ROLE\s+GROUP\s+CREATED/);
      assert.match(bindingTable, /ci\s+reader\s+acme/);
      const rolePinned = await cli.run(["iam", "roles", "delete", role.uid]);
      assert.equal(rolePinned.code, 1);
      assert.match(rolePinned.stderr, /^lading: Precondition failed/);

      assert.equal(
        await cli.ok("iam", "identities", "delete", identity, "-o", "id"),
        `${identity}\n`,
      );
      assert.equal(
        await cli.ok("iam", "role-bindings", "list", "--identity", identity, "-o", "id"),
        "",
      );
      await cli.ok("iam", "roles", "delete", role.uid);
    });

    it("follows pages with --all and prints the next page hint", async () => {
      for (const name of ["p1", "p2", "p3"]) {
        await cli.ok("iam", "groups", "create", "--parent", org, "--name", name, "-o", "id");
      }
      const page = await cli.run([
        "iam",
        "groups",
        "list",
        "--parent",
        org,
        "--page-size",
        "2",
        "--order-by",
        "name",
      ]);
      assert.equal(page.code, 0);
      assert.equal(page.stdout.trim().split("\n").length, 3);
      assert.match(page.stderr, /more results: --page-token \S+/);
      const all = JSON.parse(
        await cli.ok(
          "iam",
          "groups",
          "list",
          "--parent",
          org,
          "--page-size",
          "2",
          "--all",
          "-o",
          "json",
        ),
      );
      assert.deepEqual(all.groups.map((g: { name: string }) => g.name).sort(), ["p1", "p2", "p3"]);
    });

    it("renders server errors with field violations (exit 1) and usage errors (exit 2)", async () => {
      const bad = await cli.run([
        "iam",
        "groups",
        "create",
        "--parent",
        org,
        "--name",
        "Not A Name!",
      ]);
      assert.equal(bad.code, 1);
      const lines = bad.stderr.trim().split("\n");
      assert.equal(lines[0], "lading: Invalid argument");
      assert.match(lines[1], /^ {2}name: \S/);
      const busy = await cli.run(["iam", "groups", "delete", org]);
      assert.equal(busy.code, 1);
      assert.match(busy.stderr, /^lading: Precondition failed: .*\n {2}\S/);
      for (const args of [
        ["iam", "groups", "create", "--name", "x"],
        ["iam", "groups", "list", "--bogus"],
        ["iam", "nothing"],
        ["iam", "groups"],
        ["-o", "yaml", "iam", "groups", "list"],
        ["iam", "groups", "get"],
      ]) {
        const result = await cli.run(args);
        assert.equal(result.code, 2, `${args.join(" ")}: ${result.stderr}`);
        assert.notEqual(result.stderr, "");
      }
      const dead = `http://127.0.0.1:${await freePort()}`;
      const refused = await cli.run(["--api", dead, "iam", "groups", "list"], {
        LADING_TOKEN: await server.token(server.org.identityUid, { audience: dead }),
      });
      assert.equal(refused.code, 1);
      assert.ok(
        refused.stderr.startsWith(`lading: cannot reach the API at ${dead}: connection refused`),
        refused.stderr,
      );
    });

    it("creates invites (code with -o id), accepts terms and lists acceptances", async () => {
      const code = (
        await cli.ok(
          "iam",
          "invites",
          "create",
          "--group",
          org,
          "--role",
          "viewer",
          "--ttl",
          "168h",
          "-o",
          "id",
        )
      ).trim();
      assert.ok(code.length > 10);
      const invites = JSON.parse(
        await cli.ok("iam", "invites", "list", "--parent", org, "-o", "json"),
      );
      assert.equal(invites.groupInvites.length, 1);
      assert.equal(invites.groupInvites[0].role.name, "viewer");
      assert.equal(invites.groupInvites[0].code ?? "", "");
      await cli.ok("iam", "invites", "delete", invites.groupInvites[0].uid);
      assert.equal(
        await cli.ok("iam", "terms", "accept", "--group", org, "tos-1", "-o", "id"),
        "tos-1\n",
      );
      assert.equal(await cli.ok("iam", "terms", "list", "--group", org, "-o", "id"), "tos-1\n");
      const terms = await cli.ok("iam", "terms", "list", "--group", org);
      assert.match(terms, /^DOCUMENT\s+ACCEPTED BY\s+GROUP\s+ACCEPTED\ntos-1\s/);
    });
  });
}
