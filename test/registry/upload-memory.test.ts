import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type LadingProcess, startLadingProcess } from "../../bench/registry.ts";
import { registryPairs } from "../support/registry-server.ts";
import { startS3rver } from "../support/s3rver.ts";
import { createTestStore, type TestStore } from "../support/stores.ts";
import { floodUploads, rssMiB, rssSettles, watchRss } from "../support/upload-flood.ts";

/** Issue 21: what 100 concurrent 8 MiB uploads may add at their peak, loosely. */
const maxAddedMiB = 900;
/** How far above its baseline the server may stay once they have ended. */
const settledMarginMiB = 200;

/**
 * Many concurrent blob uploads against a real `lading serve` child process, whose RSS is read
 * from /proc: the uploads share a bounded amount of buffer memory, and give it back when they
 * end. Half go in one POST with the body, half as POST, PATCH, PUT.
 */
for (const pair of registryPairs) {
  describe(`upload memory [${pair.store}, ${pair.blobs}]`, () => {
    let store: TestStore;
    let s3: { endpoint: string; close(): Promise<void>; dir: string } | undefined;
    let lading: LadingProcess;
    before(async () => {
      store = await createTestStore(pair.store);
      const flags: string[] = [];
      if (pair.blobs === "s3") {
        const dir = await mkdtemp(join(tmpdir(), "lading-s3-"));
        s3 = { ...(await startS3rver(dir, "lading-memory")), dir };
        process.env.AWS_ACCESS_KEY_ID = "S3RVER";
        process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
        flags.push(
          "--blob-store",
          `s3://lading-memory/blobs?endpoint=${s3.endpoint}&forcePathStyle=true`,
        );
      }
      lading = await startLadingProcess("acme/flood", flags, store.options.databaseUrl);
    });
    after(async () => {
      await lading?.stop();
      await s3?.close();
      if (s3) await rm(s3.dir, { recursive: true, force: true });
      await store?.drop();
    });

    it("100 concurrent 8 MiB uploads add < 900 MiB of RSS, which falls back within 60 s", async () => {
      const target = { ...lading.target, token: lading.target.token ?? "" };
      await floodUploads(target, { count: 2, sizeMiB: 8, mode: "monolithic" });
      await floodUploads(target, { count: 2, sizeMiB: 8, mode: "chunked" });
      await sleep(3000);
      const baseline = rssMiB(lading.pid);
      const watch = watchRss(lading.pid);
      const digests = (
        await Promise.all([
          floodUploads(target, { count: 50, sizeMiB: 8, mode: "monolithic" }),
          floodUploads(target, { count: 50, sizeMiB: 8, mode: "chunked" }),
        ])
      ).flat();
      const peak = watch.stop();
      assert.equal(new Set(digests).size, 100);
      assert.ok(
        peak - baseline < maxAddedMiB,
        `RSS went ${baseline.toFixed(0)} → ${peak.toFixed(0)} MiB`,
      );
      const settled = await rssSettles(lading.pid, baseline + settledMarginMiB, 60_000);
      assert.ok(
        settled <= baseline + settledMarginMiB,
        `RSS still ${settled.toFixed(0)} MiB a minute after, from ${baseline.toFixed(0)} MiB`,
      );

      // And what was stored is what was sent.
      for (const digest of [digests[0], digests[99]]) {
        const res = await fetch(`${target.url}/v2/${target.repo}/blobs/${digest}`, {
          headers: { authorization: `Bearer ${target.token}` },
        });
        assert.equal(res.status, 200);
        const body = Buffer.from(await res.arrayBuffer());
        assert.equal(body.byteLength, 8 << 20);
        assert.equal(`sha256:${createHash("sha256").update(body).digest("hex")}`, digest);
      }
    });
  });
}
