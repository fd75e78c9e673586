import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { after, before, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import pg from "pg";
import { describe } from "../support/counted-describe.ts";
import { type EventSink, type Receipt, startEventSink } from "../support/event-sink.ts";
import { nginxPath } from "../support/nginx.ts";
import { ociClient } from "../support/oci-client.ts";
import { type BuiltImage, buildImage } from "../support/oci-layout.ts";
import { type ReplicaCluster, startReplicaCluster } from "../support/replica-cluster.ts";

const run = promisify(execFile);
const skip = existsSync(nginxPath) ? false : "nginx is not installed (Debian's nginx-light)";

/** The attempt timeout the cluster runs with: a lease lasts 2 × 2 s + 15 s = 19 s. */
const eventsTimeoutMs = 2000;
const leaseMs = 2 * eventsTimeoutMs + 15_000;

/** The digest a tag event names, in the order the sink accepted them, first receipt of each. */
function digestsOf(receipts: Receipt[], subscription: number): string[] {
  const seen = new Set<string>();
  const digests: string[] = [];
  for (const r of receipts) {
    if (r.status !== 200 || !r.url.endsWith(`?s=${subscription}`) || seen.has(r.id ?? "")) continue;
    seen.add(r.id ?? "");
    digests.push(JSON.parse(r.body).body.digest);
  }
  return digests;
}

/** The pid of the process whose socket on loopback port `port` is connected to the sink. */
async function pidOfSender(port: number): Promise<number> {
  const { stdout } = await run("ss", ["-tnpH", "src", `127.0.0.1:${port}`]);
  const pid = /pid=(\d+)/.exec(stdout)?.[1];
  if (!pid) throw new Error(`no process owns port ${port}: ${stdout}`);
  return Number(pid);
}

describe("three replicas behind nginx: background work", { skip }, () => {
  let c: ReplicaCluster;
  let sink: EventSink;
  let token: string;
  let images: BuiltImage[];
  before(async () => {
    c = await startReplicaCluster(3, {
      "outbound-allow": ["127.0.0.1"],
      "events-timeout": `${eventsTimeoutMs / 1000}s`,
      "events-backoff-base": "200ms",
    });
    token = await c.token(c.org.identityUid, c.host);
    sink = await startEventSink(c.apiUrl, c.org.groupUid);
    const apiToken = await c.token(c.org.identityUid);
    for (const s of [1, 2]) {
      const made = await fetch(`${c.apiUrl}/events/v2/subscriptions/${c.org.groupUid}`, {
        method: "POST",
        headers: { authorization: `Bearer ${apiToken}`, "content-type": "application/json" },
        body: JSON.stringify({
          sink: `${sink.url}?s=${s}`,
          typePrefix: "dev.lading.registry.tag.",
        }),
      });
      assert.equal(made.status, 200, await made.text());
    }
    images = Array.from({ length: 16 }, (_, i) => buildImage(`event ${i}`));
    const lb = ociClient(c.registryUrl, token);
    for (const image of images) {
      for (const blob of image.blobs.values()) await lb.pushBlob("acme/events", blob);
    }
  });
  after(async () => {
    await c?.close();
    await sink?.close();
  });

  const moveTag = async (image: BuiltImage) => {
    const res = await ociClient(c.registryUrl, token).putManifest(
      "acme/events",
      "t",
      image.manifest,
    );
    assert.equal(res.status, 201, await res.text());
  };

  it("delivers each event once, in order per subscription, whichever replica recorded it", async () => {
    const first = images.slice(0, 10);
    // Through the load balancer: the ten moves are recorded by all three replicas in turn.
    for (const image of first) await moveTag(image);
    const expected = first.map((i) => i.descriptor.digest);
    await sink.waitFor(() => sink.accepted().length >= 20, 60_000);
    await sleep(1500);
    assert.equal(sink.receipts.length, 20, "no event was sent twice");
    for (const s of [1, 2]) assert.deepEqual(digestsOf(sink.receipts, s), expected);
  });

  it("scans each pushed image once, whichever replica took the push", async () => {
    const client = new pg.Client({ connectionString: c.databaseUrl });
    await client.connect();
    try {
      const query = () =>
        client.query<{ digest: string; state: string; generation: number }>(
          "SELECT digest, state, generation FROM image_scans",
        );
      for (let i = 0; i < 300; i++) {
        const { rows } = await query();
        if (rows.length >= 10 && rows.every((r) => r.state === "done")) break;
        await sleep(200);
      }
      const { rows } = await query();
      const pushed = images.slice(0, 10).map((i) => i.descriptor.digest);
      assert.deepEqual(rows.map((r) => r.digest).sort(), [...pushed].sort());
      assert.deepEqual(
        rows.map((r) => [r.state, r.generation]),
        rows.map(() => ["done", 1]),
        "each image scanned and reported once",
      );
    } finally {
      await client.end();
    }
  });

  it("delivers at least once, in order, when a replica holding leases is killed with SIGKILL", async (t) => {
    const before = sink.receipts.length;
    sink.mode = { kind: "slow", ms: 10_000 };
    const later = images.slice(10);
    for (const image of later) await moveTag(image);
    // A replica leases a batch of each subscription and sends its first event: the sink holds it.
    await sink.waitFor((rs) => rs.slice(before).some((r) => r.status === 0), 30_000);
    const held = sink.receipts.slice(before).find((r) => r.status === 0) as Receipt;
    const pid = await pidOfSender(held.remotePort);
    const victim = c.replicas.find((r) => r.pid === pid);
    assert.ok(victim, `the sender ${pid} is one of the replicas`);
    await victim.stop("SIGKILL");
    const killed = Date.now();
    sink.mode = { kind: "ok" };
    const subscription = Number(new URL(held.url, "http://x").searchParams.get("s"));
    await sink.waitFor(
      (rs) => rs.some((r) => r.id === held.id && r.status === 200),
      leaseMs + 30_000,
    );
    const moved = Date.now() - killed;
    t.diagnostic(`the killed replica's lease moved after ${(moved / 1000).toFixed(1)} s`);
    assert.ok(moved <= leaseMs + 10_000, `moved within the lease (${leaseMs} ms) and a margin`);
    const all = [...images.slice(0, 10), ...later].map((i) => i.descriptor.digest);
    for (const s of [1, 2]) {
      await sink.waitFor(() => digestsOf(sink.receipts, s).length === all.length, leaseMs + 30_000);
      assert.deepEqual(digestsOf(sink.receipts, s), all, `subscription ${s} in order`);
    }
    assert.ok(
      sink.receipts.filter((r) => r.id === held.id).length >= 2,
      `the held event went to subscription ${subscription} again`,
    );
  });

  it("lets a killed replica's claim on an upload lapse within 30 s", async (t) => {
    const [writer, other] = c.replicas.filter((r) => r.alive());
    const to = (r: typeof writer) => ociClient(`http://${r.registryAddress}`, token);
    const start = await to(writer).fetch("/v2/acme/claims/blobs/uploads/", { method: "POST" });
    assert.equal(start.status, 202);
    const location = start.headers.get("location") as string;
    let sent: () => void = () => {};
    const halfway = new Promise<void>((resolve) => {
      sent = resolve;
    });
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new Uint8Array(64 * 1024));
        sent();
        // Never closed: the replica dies holding the claim.
      },
    });
    const dying = to(writer)
      .fetch(location, { method: "PATCH", body, duplex: "half" } as RequestInit)
      .catch(() => undefined);
    await halfway;
    await c.uploadClaimed(location.split("/").at(-1) as string);
    await writer.stop("SIGKILL");
    const killed = Date.now();
    await dying;
    const chunk = Buffer.alloc(1000, 7);
    const patch = () =>
      to(other).fetch(location, {
        method: "PATCH",
        body: new Uint8Array(chunk),
        headers: { "content-range": `0-${chunk.length - 1}` },
      });
    const refused = await patch();
    assert.equal(refused.status, 416, "the dead replica's claim still holds");
    let answer = refused;
    while (answer.status === 416 && Date.now() - killed < 45_000) {
      await sleep(1000);
      answer = await patch();
    }
    const lapsed = Date.now() - killed;
    t.diagnostic(
      `the upload accepted a chunk again ${(lapsed / 1000).toFixed(1)} s after the kill`,
    );
    assert.equal(answer.status, 202, await answer.text());
    assert.ok(lapsed <= 30_000 + 5000, "within the 30 s claim, a 1 s poll and a margin");
    assert.equal(answer.headers.get("range"), `0-${chunk.length - 1}`);
  });
});
