import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { promisify } from "node:util";
import { describe } from "../support/counted-describe.ts";
import { nginxPath } from "../support/nginx.ts";
import { ociClient } from "../support/oci-client.ts";
import { buildImage, sha256, writeLayout } from "../support/oci-layout.ts";
import { type ReplicaCluster, startReplicaCluster } from "../support/replica-cluster.ts";

const run = promisify(execFile);

async function skopeo(...args: string[]): Promise<string> {
  try {
    return (await run("skopeo", args, { encoding: "utf8" })).stdout;
  } catch (error) {
    const e = error as { stderr?: string };
    throw new Error(`skopeo ${args[0]} failed: ${e.stderr ?? String(error)}`);
  }
}

const skip = existsSync(nginxPath) ? false : "nginx is not installed (Debian's nginx-light)";

describe("three replicas behind nginx: the registry", { skip }, () => {
  let c: ReplicaCluster;
  let token: string;
  before(async () => {
    c = await startReplicaCluster(3);
    token = await c.token(c.org.identityUid, c.host);
  });
  after(() => c?.close());

  it("skopeo pushes and pulls through the load balancer, each request on any replica", async () => {
    const image = buildImage("replicated build");
    const ref = `docker://${c.host}/acme/app:latest`;
    await skopeo(
      "copy",
      `oci:${writeLayout("v", [image])}:v`,
      ref,
      ...["--dest-creds", `_token:${token}`, "--dest-tls-verify=false"],
    );
    const raw = await skopeo(
      "inspect",
      "--raw",
      "--creds",
      `_token:${token}`,
      "--tls-verify=false",
      ref,
    );
    assert.equal(sha256(raw), image.descriptor.digest);
    const out = mkdtempSync(join(tmpdir(), "lading-pull-"));
    await skopeo(
      "copy",
      ...["--src-creds", `_token:${token}`, "--src-tls-verify=false"],
      ref,
      `oci:${out}:pulled`,
    );
    const index = JSON.parse(readFileSync(join(out, "index.json"), "utf8"));
    assert.ok(
      index.manifests.some((m: { digest: string }) => m.digest === image.descriptor.digest),
    );
    const upstreams = new Set(
      c.nginx
        .requests()
        .filter((r) => r.path.startsWith("/v2/acme/app/"))
        .map((r) => r.upstream),
    );
    assert.equal(upstreams.size, 3, "the push and pull were spread over all three replicas");
    const status = await ociClient(c.registryUrl, token).fetch("/v2/acme/app/tags/list");
    assert.equal(status.status, 200);
  });
});
