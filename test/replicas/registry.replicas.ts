import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { randomBytes } from "node:crypto";
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

  it("takes a chunked upload whose PATCHes land on different replicas", async () => {
    const client = ociClient(c.registryUrl, token);
    const bytes = randomBytes(3 * 1024 * 1024 + 17);
    const start = await client.fetch("/v2/acme/chunked/blobs/uploads/", { method: "POST" });
    assert.equal(start.status, 202);
    let location = start.headers.get("location") as string;
    const uploadPath = new URL(location, c.registryUrl).pathname;
    const step = 512 * 1024;
    for (let offset = 0; offset < bytes.length; offset += step) {
      const chunk = bytes.subarray(offset, offset + step);
      const res = await client.fetch(location, {
        method: "PATCH",
        body: new Uint8Array(chunk),
        headers: {
          "content-type": "application/octet-stream",
          "content-range": `${offset}-${offset + chunk.length - 1}`,
        },
      });
      assert.equal(res.status, 202, await res.text());
      assert.equal(res.headers.get("range"), `0-${offset + chunk.length - 1}`);
      location = res.headers.get("location") as string;
    }
    const digest = sha256(bytes);
    const done = await client.fetch(`${location}?digest=${digest}`, { method: "PUT" });
    assert.equal(done.status, 201, await done.text());
    const patches = c.nginx.requests().filter((r) => r.method === "PATCH" && r.path === uploadPath);
    assert.equal(patches.length, 7);
    assert.equal(new Set(patches.map((r) => r.upstream)).size, 3, "PATCHes went to every replica");
    const pulled = await client.fetch(`/v2/acme/chunked/blobs/${digest}`);
    assert.equal(pulled.status, 200);
    assert.equal(sha256(Buffer.from(await pulled.arrayBuffer())), digest);
  });

  it("of two PATCHes to one upload at once on two replicas, one wins and the other gets 416", async () => {
    // Round robin places the two PATCHes; other traffic through nginx can put both on one
    // replica. Each attempt must hold either way; one of them must have met on two replicas.
    const race = async (attempt: number): Promise<number> => {
      const client = ociClient(c.registryUrl, token);
      const start = await client.fetch(`/v2/acme/race${attempt}/blobs/uploads/`, {
        method: "POST",
      });
      assert.equal(start.status, 202);
      const location = start.headers.get("location") as string;
      const first = Buffer.alloc(256 * 1024, 1);
      const second = Buffer.alloc(64 * 1024, 2);
      // The first PATCH streams half its body and holds the rest back while the second is sent:
      // both are in flight at once, on different replicas (strict round robin).
      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let sentHalf: () => void = () => {};
      const halfSent = new Promise<void>((resolve) => {
        sentHalf = resolve;
      });
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(new Uint8Array(first.subarray(0, first.length / 2)));
          sentHalf();
          await held;
          controller.enqueue(new Uint8Array(first.subarray(first.length / 2)));
          controller.close();
        },
      });
      const slow = client.fetch(location, {
        method: "PATCH",
        body,
        duplex: "half",
        headers: {
          "content-type": "application/octet-stream",
          "content-range": `0-${first.length - 1}`,
        },
      } as RequestInit);
      await halfSent;
      // Were both to reach one replica, the second would wait for the first: let it go anyway.
      const timer = setTimeout(release, 15_000);
      // The first chunk's claim is taken on its replica (however loaded the machine is).
      await c.uploadClaimed(location.split("/").at(-1) as string);
      const fast = await client.fetch(location, {
        method: "PATCH",
        body: new Uint8Array(second),
        headers: {
          "content-type": "application/octet-stream",
          "content-range": `0-${second.length - 1}`,
        },
      });
      release();
      clearTimeout(timer);
      const won = await slow;
      assert.equal(fast.status, 416, await fast.text());
      assert.equal(won.status, 202, await won.text());
      const racers = c.nginx
        .requests()
        .filter(
          (r) => r.method === "PATCH" && r.path === new URL(location, c.registryUrl).pathname,
        );
      const replicas = new Set(racers.map((r) => r.upstream)).size;
      const digest = sha256(first);
      const done = await client.fetch(`${won.headers.get("location")}?digest=${digest}`, {
        method: "PUT",
      });
      assert.equal(done.status, 201, await done.text());
      const pulled = await client.fetch(`/v2/acme/race${attempt}/blobs/${digest}`);
      assert.deepEqual(Buffer.from(await pulled.arrayBuffer()), first);
      return replicas;
    };
    let met = 0;
    for (let attempt = 0; attempt < 5 && met < 2; attempt++) met = await race(attempt);
    assert.equal(met, 2, "the two PATCHes met on two replicas in one of five attempts");
  });
});
