import assert from "node:assert/strict";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { exportJWK, generateKeyPair } from "jose";
import type { TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";
import { type CliRunner, type CliServer, startCliServer } from "./cli-support.ts";

for (const kind of storeKinds) {
  describe(`lading iam federation resources (CLI process) [${kind}]`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let org: string;
    let fixture: CliServer;
    before(async () => {
      // Its identity provider's issuer is on loopback, which the operator must allow.
      fixture = await startCliServer(kind, { outboundAllow: "127.0.0.1" });
      ({ server, cli } = fixture);
      org = server.org.groupUid;
    });
    after(() => fixture.close());

    it("manages identity providers and their group mappings", async () => {
      const secretFile = join(cli.home, "secret.txt");
      await writeFile(secretFile, "s3cret\n");
      const idp = JSON.parse(
        await cli.ok(
          ...["iam", "identity-providers", "create", "--parent", org, "--name", "corp"],
          ...["--issuer", "http://127.0.0.1:4444", "--client-id", "lading"],
          ...["--client-secret-file", secretFile, "--scope", "email", "--groups-claim", "groups"],
          ...["--default-role", "viewer", "--pkce", "-o", "json"],
        ),
      );
      assert.equal(idp.oidc.clientId, "lading");
      assert.deepEqual(idp.oidc.additionalScopes, ["email"]);
      assert.equal(idp.oidc.pkceEnabled, true);
      assert.equal(idp.oidc.clientSecret ?? "", "");
      assert.match(idp.defaultRole, /^[0-9a-f]{40}$/);
      const updated = JSON.parse(
        await cli.ok(
          "iam",
          "identity-providers",
          "update",
          idp.uid,
          "--no-pkce",
          "--client-id",
          "l2",
          "-o",
          "json",
        ),
      );
      assert.equal(updated.oidc.pkceEnabled ?? false, false);
      assert.equal(updated.oidc.clientId, "l2");
      assert.deepEqual(updated.oidc.additionalScopes, ["email"]);
      const table = await cli.ok("iam", "identity-providers", "list", "--parent", org);
      assert.match(table, /corp\s+http:\/\/127\.0\.0\.1:4444\s+l2\s/);

      const mapping = JSON.parse(
        await cli.ok(
          ...["iam", "group-mappings", "create", "--identity-provider", idp.uid],
          ...["--external-group", "admins", "--role", "owner", "-o", "json"],
        ),
      );
      assert.equal(mapping.externalGroupId, "admins");
      const mappings = await cli.ok(
        "iam",
        "group-mappings",
        "list",
        "--identity-provider",
        idp.uid,
        "-o",
        "id",
      );
      assert.equal(mappings, `${mapping.uid}\n`);
      await cli.ok("iam", "group-mappings", "delete", mapping.uid);
      await cli.ok("iam", "identity-providers", "delete", idp.uid);
      const badRole = await cli.run([
        ...["iam", "identity-providers", "create", "--parent", org, "--name", "x"],
        ...["--issuer", "https://x.example", "--client-id", "c", "--default-role", "no-such-role"],
      ]);
      assert.equal(badRole.code, 1);
      assert.match(badRole.stderr, /no role named "no-such-role"/);
    });

    it("manages account associations and renders their field violations", async () => {
      const bad = await cli.run([
        "iam",
        "account-associations",
        "create",
        "--parent",
        org,
        "--amazon-account",
        "12",
      ]);
      assert.equal(bad.code, 1);
      assert.match(
        bad.stderr,
        /^lading: Invalid argument\n {2}name: .+\n {2}amazon\.account: must be a 12-digit AWS account id\n$/,
      );
      const created = JSON.parse(
        await cli.ok(
          ...["iam", "account-associations", "create", "--parent", org, "--name", "prod"],
          ...["--amazon-account", "123456789012", "-o", "json"],
        ),
      );
      assert.equal(created.uid, org);
      const updated = JSON.parse(
        await cli.ok(
          "iam",
          "account-associations",
          "update",
          org,
          "--google-project-id",
          "my-project",
          "-o",
          "json",
        ),
      );
      assert.equal(updated.google.projectId, "my-project");
      assert.equal(updated.amazon.account, "123456789012");
      assert.match(
        await cli.ok("iam", "account-associations", "get", org),
        /prod\s+123456789012\s+my-project/,
      );
      await cli.ok("iam", "account-associations", "delete", org);
    });

    it("creates static-key identities and accepts invites as another identity", async () => {
      const { publicKey } = await generateKeyPair("ES256");
      const jwksFile = join(cli.home, "jwks.json");
      await writeFile(
        jwksFile,
        JSON.stringify({ keys: [{ ...(await exportJWK(publicKey)), kid: "k1", alg: "ES256" }] }),
      );
      const expiration = new Date(Date.now() + 30 * 86400_000).toISOString();
      const keyed = JSON.parse(
        await cli.ok(
          ...["iam", "identities", "create", "--parent", org, "--name", "deploy"],
          ...["--issuer", "https://deploy.example", "--subject", "deploy"],
          ...["--static-keys-file", jwksFile, "--expiration", expiration, "-o", "json"],
        ),
      );
      assert.equal(keyed.staticKeys.expirationTime, expiration);
      assert.equal(keyed.staticKeys.issuer, "https://deploy.example");
      assert.equal(keyed.claimMatch?.issuer ?? "", "");

      const bob = (
        await cli.ok(
          ...["iam", "identities", "create", "--parent", org, "--name", "bob"],
          ...["--issuer", "https://issuer.example", "--subject", "bob", "-o", "id"],
        )
      ).trim();
      const code = (
        await cli.ok(
          "iam",
          "invites",
          "create",
          "--group",
          org,
          "--role",
          "editor",
          "--ttl",
          "1h",
          "--single-use",
          "-o",
          "id",
        )
      ).trim();
      const asBob = { LADING_TOKEN: await server.token(bob) };
      const accepted = await cli.run(["iam", "invites", "accept", code, "-o", "json"], asBob);
      assert.equal(accepted.code, 0, accepted.stderr);
      assert.equal(JSON.parse(accepted.stdout).roleBinding.role.name, "editor");
      const again = await cli.run(["iam", "invites", "accept", code], asBob);
      assert.equal(again.code, 1);
      assert.match(again.stderr, /^lading: Precondition failed: .*already accepted.*\n {2}\S+.*: /);
      const bindings = await cli.ok("iam", "role-bindings", "list", "--identity", bob);
      assert.match(bindings, /bob\s+editor\s+acme/);
      const denied = await cli.run(
        ["iam", "groups", "create", "--parent", org, "--name", "z"],
        asBob,
      );
      assert.equal(denied.code, 1);
      assert.match(denied.stderr, /^lading: Permission denied: /);
      const unknown = await cli.run(["iam", "invites", "accept", "nope"], asBob);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^lading: /);
      await cli.ok("iam", "identities", "delete", bob, keyed.uid);
    });
  });
}
