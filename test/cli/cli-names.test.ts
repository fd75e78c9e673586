import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { seedVersion } from "../support/libraries.ts";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import type { TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";
import { type CliRunner, type CliServer, startCliServer } from "./cli-support.ts";

const uid = /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/;

for (const kind of storeKinds) {
  describe(`lading CLI takes names where uids were asked for [${kind}]`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let org: string;
    let fixture: CliServer;
    const json = async (...args: string[]) => JSON.parse(await cli.ok(...args, "-o", "json"));
    /** Runs a command that must fail with exit 1; returns its stderr. */
    const refused = async (...args: string[]) => {
      const run = await cli.run(args);
      assert.equal(run.code, 1, `lading ${args.join(" ")}: ${run.stdout}${run.stderr}`);
      assert.equal(run.stdout, "");
      return run.stderr;
    };

    before(async () => {
      // An identity provider's issuer on loopback must be allowed by the operator.
      fixture = await startCliServer(kind, { outboundAllow: "127.0.0.1" });
      ({ server, cli } = fixture);
      org = server.org.groupUid;
    });
    after(() => fixture.close());

    it("groups: by organisation name, by path, and a bare name only while it is unique", async () => {
      const teamA = await json("iam", "groups", "create", "--parent", "acme", "--name", "team-a");
      assert.equal(teamA.uid.split("/")[0], org);
      const teamB = await json("iam", "groups", "create", "--parent", org, "--name", "team-b");
      assert.equal((await json("iam", "groups", "get", "acme")).uid, org);
      assert.equal((await json("iam", "groups", "get", "team-a")).uid, teamA.uid);
      const nested = await json(
        ...["iam", "groups", "create", "--parent", "acme/team-b", "--name", "team-a"],
      );
      assert.equal(nested.uid.split("/").slice(0, 2).join("/"), teamB.uid);
      assert.equal((await json("iam", "groups", "get", "acme/team-b/team-a")).uid, nested.uid);
      assert.equal((await json("iam", "groups", "get", "acme/team-a")).uid, teamA.uid);
      const twice = await refused("iam", "groups", "get", "team-a");
      assert.match(
        twice,
        /^lading: 2 groups are named "team-a"; give one of these uids instead:\n/,
      );
      assert.ok(twice.includes(`  ${teamA.uid}  `) && twice.includes(`  ${nested.uid}  `), twice);
      assert.match(
        await refused("iam", "groups", "get", "acme/nope"),
        /no group named "acme\/nope"/,
      );
      assert.match(
        await refused("iam", "groups", "get", "nope"),
        /^lading: no group named "nope"\n$/,
      );
      // Listing below a group by its path.
      const under = await cli.ok("iam", "groups", "list", "--under", "acme/team-b", "-o", "id");
      assert.equal(under, `${nested.uid}\n`);
      // The uid still works as before.
      assert.equal((await json("iam", "groups", "get", teamA.uid)).name, "team-a");
    });

    it("identities, roles and role bindings: by name or <group>/<name>, tables show names", async () => {
      const ci = await json(
        ...["iam", "identities", "create", "--parent", "acme", "--name", "ci"],
        ...["--issuer", "https://ci.example", "--subject", "repo:acme/app"],
      );
      assert.match(ci.uid, uid);
      assert.equal((await json("iam", "identities", "get", "ci")).uid, ci.uid);
      const other = await json(
        ...["iam", "identities", "create", "--parent", "acme/team-b", "--name", "ci"],
        ...["--issuer", "https://ci.example", "--subject", "repo:acme/other"],
      );
      const twice = await refused("iam", "identities", "get", "ci");
      assert.match(
        twice,
        /^lading: 2 identities are named "ci"; give one of these uids instead:\n/,
      );
      assert.ok(twice.includes(ci.uid) && twice.includes(other.uid), twice);
      assert.equal((await json("iam", "identities", "get", "acme/ci")).uid, ci.uid);
      assert.equal((await json("iam", "identities", "get", "acme/team-b/ci")).uid, other.uid);
      assert.match(
        await refused("iam", "identities", "get", "nobody"),
        /no identity named "nobody"/,
      );

      const reader = await json(
        ...["iam", "roles", "create", "--parent", "acme", "--name", "reader"],
        ...["--capability", "repo.list"],
      );
      await json(
        ...["iam", "roles", "create", "--parent", "acme/team-b", "--name", "reader"],
        ...["--capability", "repo.list"],
      );
      const roles = await refused("iam", "roles", "get", "reader");
      assert.match(roles, /^lading: 2 roles are named "reader"/);
      assert.equal((await json("iam", "roles", "get", "acme/reader")).uid, reader.uid);
      const viewer = await json("iam", "roles", "get", "viewer");
      assert.match(viewer.uid, /^[0-9a-f]{40}$/);
      assert.match(await refused("iam", "roles", "get", "no-such-role"), /no role named/);

      const binding = await json(
        ...["iam", "role-bindings", "create", "--group", "acme/team-a"],
        ...["--identity", "acme/ci", "--role", "acme/reader"],
      );
      assert.equal(binding.role.uid, reader.uid);
      assert.equal(binding.identity.uid, ci.uid);
      const table = await cli.ok("iam", "role-bindings", "list", "--identity", "acme/ci");
      assert.match(table, new RegExp(`^${binding.uid}\\s+ci\\s+reader\\s+team-a\\s`, "m"));
      const byRole = await cli.ok(
        "iam",
        "role-bindings",
        "list",
        "--role",
        "acme/reader",
        "-o",
        "id",
      );
      assert.equal(byRole, `${binding.uid}\n`);
      // Deleting an identity by name removes its bindings first.
      assert.equal(
        await cli.ok("iam", "identities", "delete", "acme/ci"),
        `deleted acme/ci (${ci.uid})\n`,
      );
      assert.match(await refused("iam", "identities", "get", "acme/ci"), /no identity named/);
    });

    it("identity providers: default role and mapping roles shown by name", async () => {
      await json(
        ...["iam", "identity-providers", "create", "--parent", "acme", "--name", "corp"],
        ...[
          "--issuer",
          "http://127.0.0.1:4444",
          "--client-id",
          "lading",
          "--default-role",
          "viewer",
          "--pkce",
        ],
      );
      const list = await cli.ok("iam", "identity-providers", "list");
      assert.match(list, /^UID\s+NAME\s+ISSUER\s+CLIENT ID\s+DEFAULT ROLE\s+CREATED$/m);
      assert.match(list, /\scorp\s+http:\/\/127\.0\.0\.1:4444\s+lading\s+viewer\s/);
      assert.doesNotMatch(list, /\s[0-9a-f]{40}\s+\d{4}-/);
      const got = await cli.ok("iam", "identity-providers", "get", "corp");
      assert.match(got, /\slading\s+viewer\s/);
      // The JSON stays the API's, with the uid.
      assert.match((await json("iam", "identity-providers", "get", "acme/corp")).defaultRole, uid);
      await cli.ok(
        ...["iam", "group-mappings", "create", "--identity-provider", "corp"],
        ...["--external-group", "admins", "--role", "owner", "--scope", "acme/team-a"],
      );
      const mappings = await cli.ok("iam", "group-mappings", "list", "--identity-provider", "corp");
      assert.match(mappings, /\sadmins\s+owner\s+team-a\s/);
    });

    it("repos, tags and images: <org>/<image>[:<tag>]", async () => {
      const token = await server.token(server.org.identityUid, {
        audience: server.lading.registryAudience,
      });
      const oci = ociClient(server.lading.registryUrl, token);
      await oci.pushImage("acme/hooks", "v3", buildImage("three"));
      const digest = await oci.pushImage("acme/hooks", "v4", buildImage("four"));
      assert.equal((await json("images", "repos", "get", "acme/hooks")).name, "hooks");
      const tag = await json("images", "tags", "get", "acme/hooks:v4");
      assert.equal(tag.digest, digest);
      const deprecated = await json("images", "tags", "update", "acme/hooks:v4", "--deprecated");
      assert.equal(deprecated.deprecated, true);
      const v3 = await json("images", "tags", "get", "acme/hooks:v3");
      assert.equal(
        await cli.ok("images", "tags", "delete", "acme/hooks:v3"),
        `deleted acme/hooks:v3 (${v3.uid})\n`,
      );
      assert.equal(
        await cli.ok("images", "tags", "list", "--repo", "acme/hooks", "-o", "id"),
        `${tag.uid}\n`,
      );
      assert.match(
        await refused("images", "tags", "get", "acme/hooks:v3"),
        /^lading: no tag acme\/hooks:v3\n$/,
      );
      assert.match(
        await refused("images", "repos", "get", "acme/none"),
        /no repository acme\/none/,
      );
      assert.match(
        await refused("images", "repos", "get", "beta/hooks"),
        /no organisation named "beta"/,
      );
      const created = await json(
        ...["images", "tags", "create", "--repo", "acme/hooks", "--name", "stable"],
        ...["--digest", digest],
      );
      assert.equal(created.digest, digest);
      const usage = await cli.run(["images", "tags", "get", "hooks"]);
      assert.equal(usage.code, 2);
      assert.match(usage.stderr, /expected a tag uid or <org>\/<image>:<tag>, got "hooks"/);
    });

    it("packages: by name, narrowed by --ecosystem or --org when several share it", async () => {
      await seedVersion(server, {
        orgUid: org,
        ecosystem: "python",
        name: "greet-lading",
        version: "1.0",
      });
      await seedVersion(server, {
        orgUid: org,
        ecosystem: "python",
        name: "greet-lading",
        version: "1.1",
      });
      await seedVersion(server, {
        orgUid: org,
        ecosystem: "javascript",
        name: "greet-lading",
        version: "2.0.0",
      });
      await seedVersion(server, {
        orgUid: org,
        ecosystem: "python",
        name: "greet-lading-extra",
        version: "9.0",
      });
      const twice = await refused("libraries", "versions", "greet-lading");
      assert.match(
        twice,
        /^lading: 2 packages are named "greet-lading"; give one of these uids instead:\n/,
      );
      assert.ok(twice.includes(`python:${org}:greet-lading`), twice);
      assert.ok(twice.includes(`javascript:${org}:greet-lading`), twice);
      const python = await cli.ok(
        ...["libraries", "versions", "greet-lading", "--ecosystem", "python", "--org", "acme"],
      );
      assert.match(python, /^VERSION\s/);
      assert.deepEqual(
        python
          .trim()
          .split("\n")
          .slice(1)
          .map((line) => line.split(/\s+/)[0]),
        ["1.1", "1.0"],
      );
      const js = await json("libraries", "versions", "greet-lading", "--ecosystem", "javascript");
      assert.deepEqual(
        js.artifactVersions.map((v: { version: string }) => v.version),
        ["2.0.0"],
      );
      const byId = await json("libraries", "versions", `python:${org}:greet-lading`);
      assert.equal(byId.artifactVersions.length, 2);
      assert.match(
        await refused("libraries", "versions", "greet"),
        /^lading: no package named "greet"\n$/,
      );
      const listed = await cli.ok(
        "libraries",
        "list",
        "--org",
        "acme",
        "--ecosystem",
        "python",
        "-o",
        "id",
      );
      assert.equal(listed, `python:${org}:greet-lading\npython:${org}:greet-lading-extra\n`);
    });
  });
}
