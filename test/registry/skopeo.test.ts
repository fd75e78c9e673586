import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { ociClient } from "../support/oci-client.ts";
import { buildImage, buildIndex, sha256, writeLayout } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const run = promisify(execFile);

/** Runs skopeo; resolves to stdout, rejects with its stderr. */
async function skopeo(...args: string[]): Promise<string> {
  try {
    return (await run("skopeo", args, { encoding: "utf8" })).stdout;
  } catch (error) {
    const e = error as { stderr?: string };
    throw new Error(`skopeo ${args[0]} failed: ${e.stderr ?? String(error)}`);
  }
}

for (const pair of registryPairs) {
  describe(`skopeo round trips [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let creds: string[];
    before(async () => {
      r = await startRegistryServer(pair);
      creds = ["--creds", `_token:${r.ownerToken}`, "--tls-verify=false"];
    });
    after(() => r?.close());

    it("pushes an image, moves its tag, reads history with a token, and pulls the older digest", async () => {
      const first = buildImage("first build");
      const second = buildImage("second build");
      const ref = `docker://${r.host}/acme/app:latest`;
      for (const image of [first, second]) {
        await skopeo(
          "copy",
          `oci:${writeLayout("v", [image])}:v`,
          ref,
          "--dest-creds",
          `_token:${r.ownerToken}`,
          "--dest-tls-verify=false",
        );
      }
      const raw = await skopeo("inspect", "--raw", ...creds, ref);
      assert.equal(sha256(raw), second.descriptor.digest);
      const inspected = JSON.parse(await skopeo("inspect", ...creds, ref));
      assert.equal(inspected.Digest, second.descriptor.digest);
      assert.equal(inspected.Architecture, "amd64");

      const history = await ociClient(r.registryUrl, r.ownerToken).fetch(
        "/v2/acme/app/_lading/history/latest",
      );
      assert.equal(history.status, 200);
      const body = (await history.json()) as { history: { digest: string }[] };
      assert.deepEqual(
        body.history.map((h) => h.digest),
        [first.descriptor.digest, second.descriptor.digest],
      );

      const out = writeLayout("unused", [first]);
      await skopeo(
        "copy",
        ...["--src-creds", `_token:${r.ownerToken}`, "--src-tls-verify=false"],
        `docker://${r.host}/acme/app@${first.descriptor.digest}`,
        `oci:${out}:pulled`,
      );
      const index = JSON.parse(readFileSync(join(out, "index.json"), "utf8"));
      const pulled = index.manifests.find(
        (m: { annotations?: Record<string, string> }) =>
          m.annotations?.["org.opencontainers.image.ref.name"] === "pulled",
      );
      assert.equal(pulled.digest, first.descriptor.digest);
    });

    it("copies a multi-architecture index, lists tags and deletes", async () => {
      const amd = buildImage("amd64 build", "amd64");
      const arm = buildImage("arm64 build", "arm64");
      const index = buildIndex([amd, arm]);
      const ref = `docker://${r.host}/acme/multi/arch:v1`;
      await skopeo(
        "copy",
        "--all",
        `oci:${writeLayout("v1", [amd, arm], index)}:v1`,
        ref,
        "--dest-creds",
        `_token:${r.ownerToken}`,
        "--dest-tls-verify=false",
      );
      const raw = await skopeo("inspect", "--raw", ...creds, ref);
      assert.deepEqual(
        JSON.parse(raw).manifests.map((m: { digest: string }) => m.digest),
        [amd.descriptor.digest, arm.descriptor.digest],
      );
      const head = await ociClient(r.registryUrl, r.ownerToken).fetch(
        "/v2/acme/multi/arch/manifests/v1",
        { method: "HEAD" },
      );
      assert.equal(head.headers.get("docker-content-digest"), sha256(raw));
      assert.equal(head.headers.get("content-type"), "application/vnd.oci.image.index.v1+json");
      const armInspect = JSON.parse(
        await skopeo("inspect", "--override-arch", "arm64", ...creds, ref),
      );
      assert.equal(armInspect.Architecture, "arm64");
      await skopeo(
        "copy",
        ...["--src-creds", `_token:${r.ownerToken}`, "--src-tls-verify=false"],
        ...["--dest-creds", `_token:${r.ownerToken}`, "--dest-tls-verify=false"],
        ref,
        `docker://${r.host}/acme/multi/arch:v2`,
        "--all",
      );
      const tags = JSON.parse(
        await skopeo("list-tags", ...creds, `docker://${r.host}/acme/multi/arch`),
      );
      assert.deepEqual(tags.Tags, ["v1", "v2"]);
      await skopeo("delete", ...creds, `docker://${r.host}/acme/multi/arch:v2`);
      await assert.rejects(
        skopeo("inspect", "--raw", ...creds, ref),
        /manifest unknown|not found/i,
      );
    });

    it("lets anonymous clients copy only the public organisation's free-tier tags", async () => {
      const image = buildImage("public build");
      const owner = ociClient(r.registryUrl, r.publicOrg.token);
      await owner.pushImage("public/tool", "latest", image);
      await owner.pushImage("public/tool", "1.0", image);
      const out = writeLayout("unused", [image]);
      await skopeo(
        "copy",
        "--src-tls-verify=false",
        `docker://${r.host}/public/tool:latest`,
        `oci:${out}:anon`,
      );
      await assert.rejects(
        skopeo(
          "copy",
          "--src-tls-verify=false",
          `docker://${r.host}/public/tool:1.0`,
          `oci:${out}:x`,
        ),
        /denied|unauthorized/i,
      );
      await assert.rejects(
        skopeo("inspect", "--raw", "--tls-verify=false", `docker://${r.host}/acme/app:latest`),
        /unauthorized|denied|authentication/i,
      );
      const tags = JSON.parse(
        await skopeo("list-tags", "--tls-verify=false", `docker://${r.host}/public/tool`),
      );
      assert.deepEqual(tags.Tags, ["latest"]);
    });
  });
}
