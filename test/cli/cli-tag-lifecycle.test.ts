import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import type { TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";
import { type CliRunner, type CliServer, startCliServer } from "./cli-support.ts";

for (const kind of storeKinds) {
  describe(`lading images restore and tag-policies (CLI process) [${kind}]`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let fixture: CliServer;
    let oci: ReturnType<typeof ociClient>;
    before(async () => {
      fixture = await startCliServer(kind);
      ({ server, cli } = fixture);
      const host = server.lading.registryAudience;
      oci = ociClient(
        server.lading.registryUrl,
        await server.token(server.org.identityUid, { audience: host }),
      );
    });
    after(() => fixture.close());

    const digestOf = async (tag: string) =>
      (await oci.fetch(`/v2/acme/app/manifests/${tag}`, { method: "HEAD" })).headers.get(
        "docker-content-digest",
      );

    it("restores a tag by digest and by time, also after it was deleted", async () => {
      const a = await oci.pushImage("acme/app", "latest", buildImage("a"));
      const b = await oci.pushImage("acme/app", "latest", buildImage("b"));
      const toA = JSON.parse(
        await cli.ok("images", "restore", "acme/app:latest", "--to", a, "-o", "json"),
      );
      assert.equal(toA.digest, a);
      assert.equal(await digestOf("latest"), a);
      const history = JSON.parse(
        await cli.ok("images", "history", "acme/app:latest", "-o", "json"),
      );
      const atB = history.history[1].updateTimestamp;
      const text = await cli.ok("images", "restore", "acme/app:latest", "--at", atB);
      assert.match(text, new RegExp(`latest\\s+${b}`));
      assert.equal(await digestOf("latest"), b);
      assert.equal(
        (await oci.fetch("/v2/acme/app/manifests/latest", { method: "DELETE" })).status,
        202,
      );
      await cli.ok("images", "restore", "acme/app:latest", "--to", a);
      assert.equal(await digestOf("latest"), a);
      const neither = await cli.run(["images", "restore", "acme/app:latest"]);
      assert.notEqual(neither.code, 0);
      assert.match(neither.stderr, /give --to or --at/);
      const never = await cli.run([
        "images",
        "restore",
        "acme/app:latest",
        "--to",
        `sha256:${"1".repeat(64)}`,
      ]);
      assert.notEqual(never.code, 0);
      assert.match(never.stderr, /never pointed to/);
    });

    it("creates, lists and deletes an immutability rule, which refuses a restore", async () => {
      const a = await oci.pushImage("acme/app", "v1", buildImage("a"));
      await oci.pushImage("acme/app", "v1", buildImage("b"));
      const rule = JSON.parse(
        await cli.ok(
          "images",
          "tag-policies",
          "create",
          "--on",
          "acme",
          "--pattern",
          "v*",
          "--immutable",
          "-o",
          "json",
        ),
      );
      assert.equal(rule.kind, "TAG_POLICY_KIND_IMMUTABLE");
      const listed = await cli.ok("images", "tag-policies", "list", "--on", "acme");
      assert.match(listed, new RegExp(`${rule.uid}\\s+TAG_POLICY_KIND_IMMUTABLE\\s+v\\*`));
      const refused = await cli.run(["images", "restore", "acme/app:v1", "--to", a]);
      assert.notEqual(refused.code, 0);
      assert.match(refused.stderr, /tag "v1" is immutable/);
      await cli.ok("images", "tag-policies", "delete", rule.uid);
      await cli.ok("images", "restore", "acme/app:v1", "--to", a);
      assert.equal(await digestOf("v1"), a);
    });

    it("previews what a retention policy on a repo would delete", async () => {
      await oci.pushImage("acme/app", "rc-1", buildImage("rc1"));
      await oci.pushImage("acme/app", "rc-2", buildImage("rc2"));
      await cli.ok(
        "images",
        "tag-policies",
        "create",
        "--on",
        "acme/app",
        "--pattern",
        "rc-*",
        "--keep-newest",
        "1",
      );
      const preview = JSON.parse(
        await cli.ok("images", "tag-policies", "preview", "acme/app", "-o", "json"),
      );
      assert.deepEqual(
        preview.tags.map((t: { repository: string; name: string; reason: string }) => [
          t.repository,
          t.name,
          t.reason,
        ]),
        [["acme/app", "rc-1", "keep_newest"]],
      );
      // A dry run deletes nothing.
      assert.ok(await digestOf("rc-1"));
    });
  });
}
