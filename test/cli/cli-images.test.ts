import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import type { TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";
import { type CliRunner, type CliServer, startCliServer } from "./cli-support.ts";

for (const kind of storeKinds) {
  describe(`lading images (CLI process) [${kind}]`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let host: string;
    let registryToken: string;
    let fixture: CliServer;
    before(async () => {
      fixture = await startCliServer(kind);
      ({ server, cli } = fixture);
      host = server.lading.registryAudience;
      registryToken = await server.token(server.org.identityUid, { audience: host });
    });
    after(() => fixture.close());

    it("lists repos and tags after a push, and prints a tag's history with --pin", async () => {
      const oci = ociClient(server.lading.registryUrl, registryToken);
      const first = await oci.pushImage("acme/app", "latest", buildImage("one"));
      const second = await oci.pushImage("acme/app", "latest", buildImage("two"));
      await oci.pushImage("acme/app", "v1", buildImage("one"));

      const repos = JSON.parse(await cli.ok("images", "repos", "list", "-o", "json"));
      assert.deepEqual(
        repos.repos.map((r: { name: string }) => r.name),
        ["app"],
      );
      const repoUid = repos.repos[0].uid;
      const updated = JSON.parse(
        await cli.ok(
          "images",
          "repos",
          "update",
          repoUid,
          "--description",
          "The app",
          "-o",
          "json",
        ),
      );
      assert.equal(updated.description, "The app");
      const byPath = await cli.ok(
        "images",
        "tags",
        "list",
        "--repo",
        "acme/app",
        "--order-by",
        "name",
      );
      assert.match(byPath, /^UID\s+NAME\s+DIGEST\s+DEPRECATED\s+UPDATED\n/);
      assert.match(byPath, new RegExp(`latest\\s+${second}\\s+no`));
      assert.match(byPath, new RegExp(`v1\\s+${first}\\s+no`));
      const byUid = await cli.ok(
        "images",
        "tags",
        "list",
        "--repo",
        repoUid,
        "--digest",
        first,
        "-o",
        "json",
      );
      assert.deepEqual(
        JSON.parse(byUid).tags.map((t: { name: string }) => t.name),
        ["v1"],
      );
      const missing = await cli.run(["images", "tags", "list", "--repo", "acme/nope"]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no repository acme\/nope/);

      const withRegistryToken = { LADING_TOKEN: registryToken };
      const timeline = await cli.run(["images", "history", "acme/app:latest"], withRegistryToken);
      assert.equal(timeline.code, 0, timeline.stderr);
      const rows = timeline.stdout.trim().split("\n");
      assert.match(rows[0], /^TIME\s+DIGEST$/);
      assert.match(rows[1], new RegExp(`^\\d{4}-\\d\\d-\\d\\dT\\S+Z\\s+${first}$`));
      assert.match(rows[2], new RegExp(`\\s${second}$`));
      const pinned = await cli.run(
        ["images", "history", "acme/app:latest", "--pin"],
        withRegistryToken,
      );
      assert.equal(pinned.stdout, `${host}/acme/app@${first}\n${host}/acme/app@${second}\n`);
      const reminted = await cli.run(["images", "history", "acme/app:latest", "--pin"]);
      assert.equal(reminted.stdout, pinned.stdout, reminted.stderr);
      const json = await cli.run(
        ["images", "history", "acme/app:latest", "-o", "json"],
        withRegistryToken,
      );
      assert.equal(JSON.parse(json.stdout).history.length, 2);
      const unknown = await cli.run(["images", "history", "acme/app:never"], withRegistryToken);
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /^lading: MANIFEST_UNKNOWN: /);
      const usage = await cli.run(["images", "history", "acme-app"], withRegistryToken);
      assert.equal(usage.code, 2);
    });

    it("creates and deletes repos and tags through the API", async () => {
      const org = server.org.groupUid;
      const repo = (
        await cli.ok(
          "images",
          "repos",
          "create",
          "--parent",
          org,
          "--name",
          "tools/cli",
          "-o",
          "id",
        )
      ).trim();
      assert.equal(
        JSON.parse(await cli.ok("images", "repos", "get", repo, "-o", "json")).name,
        "tools/cli",
      );
      assert.equal(
        await cli.ok("images", "tags", "list", "--repo", "acme/tools/cli", "-o", "id"),
        "",
      );
      assert.equal(await cli.ok("images", "repos", "delete", repo), `deleted ${repo}\n`);
    });
  });
}
