import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import { browserClients, startBrowserProvider } from "../support/oidc-provider.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { type CliRunner, cliRunner, cliSignIn } from "./cli-support.ts";

const run = promisify(execFile);
const skopeoInspect = async (creds: string, reference: string) =>
  JSON.parse(
    (await run("skopeo", ["inspect", "--tls-verify=false", "--creds", creds, reference])).stdout,
  ) as { Digest: string };

/**
 * The README's sign-in walkthrough, command by command, through the real CLI: configure an
 * identity provider, sign in, print a registry token and read a tag's history with it, pull an
 * older digest, create a pull token for CI, and invite a colleague who signs in and accepts.
 */
for (const pair of registryPairs) {
  describe(`README sign-in walkthrough [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let provider: Awaited<ReturnType<typeof startBrowserProvider>>;
    let admin: CliRunner;
    let me: CliRunner;
    let bob: CliRunner;

    before(async () => {
      // The provider listens on loopback, which the operator must allow.
      r = await startRegistryServer(pair, { outboundAllow: "127.0.0.1" });
      provider = await startBrowserProvider({ redirectUri: `${r.server.apiUrl}/auth/v2/callback` });
      provider.setAccount("me", { email: "me@example.com", emailVerified: true });
      provider.setAccount("bob", { email: "bob@example.com", emailVerified: true });
      const urls = {
        LADING_API_URL: r.server.apiUrl,
        LADING_REGISTRY_URL: r.registryUrl,
        LADING_NO_BROWSER: "1",
      };
      admin = await cliRunner({ ...urls, LADING_TOKEN: r.ownerToken });
      me = await cliRunner(urls);
      bob = await cliRunner(urls);
    });
    after(async () => {
      await Promise.all([admin, me, bob].map((runner) => runner?.cleanup()));
      await provider?.close();
      await r?.close();
    });

    it("goes from a fresh organisation to a signed-in team with CI credentials", async () => {
      const org = r.server.org.groupUid;
      const created = await admin.run(
        [
          "iam",
          "identity-providers",
          "create",
          "--parent",
          org,
          "--name",
          "sso",
          "--issuer",
          provider.issuer,
          "--client-id",
          browserClients.web.clientId,
          "--client-secret-stdin",
          "--scope",
          "email",
          "--default-role",
          "viewer",
          "-o",
          "id",
        ],
        {},
        { stdin: browserClients.web.clientSecret },
      );
      assert.equal(created.code, 0, created.stderr);
      const idp = created.stdout.trim();
      await me.ok("config", "set", "identity-provider", idp);

      const signedIn = await cliSignIn(me, "me");
      assert.equal(signedIn.code, 0, signedIn.stderr);
      const uid = /^Signed in as ([0-9a-f]{40})$/m.exec(signedIn.stdout)?.[1] ?? "";
      assert.ok(uid, signedIn.stdout);
      await admin.ok(
        "iam",
        "role-bindings",
        "create",
        "--group",
        org,
        "--identity",
        uid,
        "--role",
        "owner",
      );

      const pusher = ociClient(r.registryUrl, r.ownerToken);
      const first = await pusher.pushImage("acme/app", "latest", buildImage("build 1"));
      const second = await pusher.pushImage("acme/app", "latest", buildImage("build 2"));
      const token = (await me.ok("auth", "token", "--audience", r.host)).trim();
      const history = await fetch(`${r.registryUrl}/v2/acme/app/_lading/history/latest`, {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(history.status, 200);
      const records = ((await history.json()) as { history: { digest: string }[] }).history;
      assert.deepEqual(
        records.map((h) => h.digest),
        [first, second],
      );
      const pinned = await me.ok("images", "history", "acme/app:latest", "--pin");
      assert.deepEqual(pinned.trim().split("\n"), [
        `${r.host}/acme/app@${first}`,
        `${r.host}/acme/app@${second}`,
      ]);
      const older = await skopeoInspect(`_token:${token}`, `docker://${r.host}/acme/app@${first}`);
      assert.equal(older.Digest, first);

      const pull = JSON.parse(
        await me.ok("auth", "pull-token", "--parent", org, "--ttl", "720h", "-o", "json"),
      ) as { username: string; password: string };
      const viaPullToken = await skopeoInspect(
        `${pull.username}:${pull.password}`,
        `docker://${r.host}/acme/app:latest`,
      );
      assert.equal(viaPullToken.Digest, second);

      const code = (
        await me.ok(
          "iam",
          "invites",
          "create",
          "--group",
          org,
          "--role",
          "editor",
          "--ttl",
          "168h",
          "--email",
          "bob@example.com",
          "-o",
          "id",
        )
      ).trim();
      const joined = await cliSignIn(bob, "bob", [
        "--identity-provider",
        idp,
        "--invite-code",
        code,
      ]);
      assert.equal(joined.code, 0, joined.stderr);
      const bobUid = /^Signed in as ([0-9a-f]{40})$/m.exec(joined.stdout)?.[1] ?? "";
      const bindings = JSON.parse(
        await me.ok("iam", "role-bindings", "list", "--identity", bobUid, "-o", "json"),
      ) as { roleBindings: { role: { name: string }; group: { uid: string } }[] };
      assert.deepEqual(bindings.roleBindings.map((b) => `${b.role.name}@${b.group.uid}`).sort(), [
        `editor@${org}`,
        `viewer@${org}`,
      ]);
    });
  });
}
