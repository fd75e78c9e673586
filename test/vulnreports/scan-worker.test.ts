import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough, Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { createLogger } from "../../src/server/index.ts";
import { type BlobStore, createBlobStore } from "../../src/store/blobs/index.ts";
import type { MetadataStore } from "../../src/store/metadata/index.ts";
import { createScanWorker, type ScanWorkerOptions } from "../../src/vulnreports/scans/index.ts";
import { scanImage } from "../../src/vulnreports/scans/scan-image.ts";
import { enqueuePushed, pendingRow } from "../../src/vulnreports/scans/scan-queue.ts";
import type { BuiltImage } from "../support/oci-layout.ts";
import {
  expectedPackages,
  imageOf,
  packageFiles,
  referrerOf,
  waitFor,
} from "../support/scan-images.ts";
import { openTestStore, storeKinds } from "../support/stores.ts";

const log = createLogger({ level: "silent" });
const REPO = "0123456789abcdef0123456789abcdef01234567/00000000000000aa";

for (const kind of storeKinds) {
  describe(`scan worker [${kind}]`, () => {
    let opened: Awaited<ReturnType<typeof openTestStore>>;
    let store: MetadataStore;
    let blobs: BlobStore;
    let dir: string;
    before(async () => {
      opened = await openTestStore(kind);
      store = opened.store;
      dir = mkdtempSync(join(tmpdir(), "lading-scan-blobs-"));
      blobs = await createBlobStore({ dataDir: dir });
    });
    after(async () => {
      await opened?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    /** Stores an image's blobs and manifest as a push would, and queues it. */
    async function pushed(image: BuiltImage, queue = true): Promise<string> {
      for (const bytes of image.blobs.values()) await blobs.put(Readable.from([bytes]));
      await blobs.put(Readable.from([image.manifest]));
      const time = new Date().toISOString();
      await store.db
        .insertInto("manifests")
        .values({
          repo_uid: REPO,
          digest: image.descriptor.digest,
          media_type: image.descriptor.mediaType,
          artifact_type: "application/vnd.oci.image.config.v1+json",
          subject_digest: null,
          size: image.manifest.length,
          create_time: time,
        })
        .execute();
      if (queue) {
        await store.db
          .insertInto("image_scans")
          .values(pendingRow(REPO, image.descriptor.digest, time))
          .execute();
      }
      return image.descriptor.digest;
    }
    const scanOf = (digest: string) =>
      store.db
        .selectFrom("image_scans")
        .selectAll()
        .where("digest", "=", digest)
        .executeTakeFirstOrThrow();
    const inState = (digest: string, state: string) =>
      waitFor(`${digest} ${state}`, async () => {
        const row = await scanOf(digest);
        return row.state === state ? row : undefined;
      });
    const worker = (extra: Partial<ScanWorkerOptions> = {}) =>
      createScanWorker({
        db: store.db,
        blobs,
        log,
        match: async () => {},
        registryUrl: "http://registry.test",
        pollMs: 50,
        ...extra,
      });
    /** Distinct images: the same files and a marker file of `n`. */
    const imageNo = (n: number) =>
      imageOf([[packageFiles.osRelease, packageFiles.apk, { name: "n", content: String(n) }]]);

    it("two workers sharing the queue scan each image exactly once", async () => {
      const digests = [];
      for (let n = 0; n < 6; n++) digests.push(await pushed(await imageNo(n)));
      const calls: string[] = [];
      const match = async ({ digest }: { digest: string }) => {
        calls.push(digest);
      };
      const [a, b] = [worker({ match }), worker({ match })];
      try {
        for (const digest of digests) {
          const row = await inState(digest, "done");
          assert.equal(row.sbom_source, "generated");
          assert.equal(row.distro, "alpine 3.20.3");
        }
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
      assert.deepEqual([...calls].sort(), [...digests].sort());
      const sboms = await store.db
        .selectFrom("image_sboms")
        .select(["image_digest", "package_count"])
        .where("image_digest", "in", digests)
        .execute();
      assert.equal(sboms.length, 6);
      assert.ok(sboms.every((s) => s.package_count === 2));
    });

    it("a worker told not to scan leaves the queue to the others", async () => {
      const digest = await pushed(await imageNo(100));
      const idle = worker({ scan: false });
      try {
        await new Promise((resolve) => setTimeout(resolve, 300));
        assert.equal((await scanOf(digest)).state, "pending");
      } finally {
        await idle.close();
      }
      const active = worker();
      try {
        await inState(digest, "done");
      } finally {
        await active.close();
      }
    });

    it("a fresh claim of another replica is left alone; a stale one is taken over", async () => {
      const fresh = await pushed(await imageNo(10), false);
      const stale = await pushed(await imageNo(11), false);
      const now = Date.now();
      for (const [digest, claimed] of [
        [fresh, now],
        [stale, now - 120_000],
      ] as const) {
        const time = new Date(claimed).toISOString();
        await store.db
          .insertInto("image_scans")
          .values({ ...pendingRow(REPO, digest, time), state: "scanning", claim_time: time })
          .execute();
      }
      const w = worker({ scanTimeoutMs: 60_000 });
      try {
        await inState(stale, "done");
        await new Promise((resolve) => setTimeout(resolve, 200));
        assert.equal((await scanOf(fresh)).state, "scanning");
      } finally {
        await w.close();
      }
    });

    it("a scan over the time limit fails with a reason", async () => {
      const image = await imageNo(20);
      const layer = JSON.parse(image.manifest.toString()).layers[0].digest;
      const digest = await pushed(image);
      const stuck: BlobStore = {
        ...blobs,
        get: async (d, range) => (d === layer ? new PassThrough() : blobs.get(d, range)),
      };
      const w = worker({ blobs: stuck, scanTimeoutMs: 300 });
      try {
        const row = await inState(digest, "failed");
        assert.equal(row.reason, "the scan took longer than the 0.3 s allowed");
        assert.equal(row.attempts, 1);
        assert.equal(row.claim_time, null);
      } finally {
        await w.close();
      }
    });

    it("a store error is retried, and after the third attempt the scan fails with it", async () => {
      const flaky = await pushed(await imageNo(30));
      let failures = 1;
      const once: BlobStore = {
        ...blobs,
        stat: async (d) => {
          if (d === flaky && failures-- > 0) throw new Error("connection reset");
          return blobs.stat(d);
        },
      };
      const w1 = worker({ blobs: once, retryDelayMs: 20 });
      try {
        const row = await inState(flaky, "done");
        assert.equal(row.attempts, 0);
        assert.deepEqual(
          (
            await store.db
              .selectFrom("image_packages")
              .select("purl")
              .where("image_digest", "=", flaky)
              .orderBy("purl")
              .execute()
          ).map((p) => p.purl),
          expectedPackages.slice(0, 2).map((p) => p.purl),
        );
      } finally {
        await w1.close();
      }

      const broken = await pushed(await imageNo(31));
      const down: BlobStore = {
        ...blobs,
        stat: async (d) => {
          if (d === broken) throw new Error("connection reset");
          return blobs.stat(d);
        },
      };
      const w2 = worker({ blobs: down, retryDelayMs: 20 });
      try {
        const row = await inState(broken, "failed");
        assert.equal(row.reason, "the scan failed 3 times, last: connection reset");
        assert.equal(row.attempts, 3);
      } finally {
        await w2.close();
      }
    });

    it("an image marked for rematch is matched again without a new scan", async () => {
      const digest = await pushed(await imageNo(40));
      const calls: string[] = [];
      let fail = false;
      const w = worker({
        match: async ({ digest: d }) => {
          calls.push(d);
          if (fail) throw new Error("matcher down");
        },
      });
      try {
        const done = await inState(digest, "done");
        await store.db
          .updateTable("image_scans")
          .set({ rematch: 1 })
          .where("digest", "=", digest)
          .execute();
        w.wake();
        await waitFor("a second match", async () => (calls.length === 2 ? true : undefined));
        const again = await waitFor("rematch cleared", async () => {
          const row = await scanOf(digest);
          return row.rematch === 0 ? row : undefined;
        });
        assert.equal(again.sbom_digest, done.sbom_digest);
        assert.equal(again.update_time >= done.update_time, true);

        fail = true;
        await store.db
          .updateTable("image_scans")
          .set({ rematch: 1 })
          .where("digest", "=", digest)
          .execute();
        w.wake();
        await waitFor("a failed match", async () => (calls.length === 3 ? true : undefined));
        const marked = await waitFor("rematch set again", async () => {
          const row = await scanOf(digest);
          return row.rematch === 1 && row.update_time > new Date().toISOString() ? row : undefined;
        });
        assert.equal(marked.state, "done");
      } finally {
        await w.close();
      }
      assert.deepEqual(calls, [digest, digest, digest]);
    });

    it("an SBOM generated by a scan whose result was discarded is still known as Lading's", async () => {
      const digest = await pushed(await imageNo(70));
      // A scan that generated its SBOM, then lost its claim (a pushed SBOM reset the row).
      const env = {
        db: store.db,
        blobs,
        registryUrl: "http://registry.test",
        toolVersion: "test",
        signal: new AbortController().signal,
      };
      const lost = await scanImage(env, REPO, digest);
      assert.equal(lost.kind, "done");
      const w = worker({ toolVersion: "test" });
      try {
        const row = await inState(digest, "done");
        assert.equal(row.sbom_source, "generated");
        assert.equal(row.sbom_digest, lost.kind === "done" ? lost.sbomDigest : "");
      } finally {
        await w.close();
      }
      const sboms = await store.db
        .selectFrom("image_sboms")
        .select(["source", "package_count"])
        .where("image_digest", "=", digest)
        .execute();
      assert.deepEqual(sboms, [{ source: "generated", package_count: 2 }]);
    });

    it("an index of 3,000 entries queues every one", async () => {
      const children = Array.from(
        { length: 3000 },
        (_, i) => `sha256:${i.toString(16).padStart(64, "0")}`,
      );
      await enqueuePushed(store.db, {
        repoUid: "big-index",
        digest: "sha256:index",
        mediaType: "application/vnd.oci.image.index.v1+json",
        artifactType: "",
        configMediaType: "",
        layerMediaTypes: [],
        subjectDigest: null,
        childDigests: children,
        tags: ["v1"],
      });
      const row = await store.db
        .selectFrom("image_scans")
        .select((eb) => eb.fn.countAll<string | number>().as("n"))
        .where("repo_uid", "=", "big-index")
        .where("state", "=", "pending")
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.n), 3000);
      await store.db.deleteFrom("image_scans").where("repo_uid", "=", "big-index").execute();
    });

    it("only the 16 newest of an image's SBOMs are read, and the newest wins", async () => {
      const image = await imageNo(60);
      const digest = await pushed(image, false);
      const spdx = (n: number) =>
        Buffer.from(
          JSON.stringify({
            spdxVersion: "SPDX-2.3",
            SPDXID: "SPDXRef-DOCUMENT",
            packages: [
              {
                SPDXID: "SPDXRef-p",
                name: `pkg-${n}`,
                versionInfo: "1.0.0",
                externalRefs: [
                  {
                    referenceCategory: "PACKAGE-MANAGER",
                    referenceType: "purl",
                    referenceLocator: `pkg:npm/pkg-${n}@1.0.0`,
                  },
                ],
              },
            ],
          }),
        );
      const referrers: string[] = [];
      for (let n = 0; n < 18; n++) {
        const artifact = referrerOf(image.descriptor, "application/spdx+json", spdx(n));
        for (const bytes of artifact.blobs.values()) await blobs.put(Readable.from([bytes]));
        await blobs.put(Readable.from([artifact.manifest]));
        await store.db
          .insertInto("manifests")
          .values({
            repo_uid: REPO,
            digest: artifact.descriptor.digest,
            media_type: artifact.descriptor.mediaType,
            artifact_type: "application/vnd.oci.empty.v1+json",
            subject_digest: digest,
            size: artifact.manifest.length,
            create_time: new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString(),
          })
          .execute();
        referrers.push(artifact.descriptor.digest);
      }
      await store.db
        .insertInto("image_scans")
        .values(pendingRow(REPO, digest, new Date().toISOString()))
        .execute();
      const w = worker();
      try {
        const row = await inState(digest, "done");
        assert.equal(row.sbom_digest, referrers[17]);
      } finally {
        await w.close();
      }
      const recorded = await store.db
        .selectFrom("image_sboms")
        .select("sbom_digest")
        .where("image_digest", "=", digest)
        .execute();
      assert.deepEqual(recorded.map((r) => r.sbom_digest).sort(), referrers.slice(2).sort());
      const packages = await store.db
        .selectFrom("image_packages")
        .select("name")
        .where("image_digest", "=", digest)
        .execute();
      assert.deepEqual(packages, [{ name: "pkg-17" }]);
    });

    it("closing the worker puts the scan in flight back in the queue", async () => {
      const image = await imageNo(50);
      const layer = JSON.parse(image.manifest.toString()).layers[0].digest;
      const digest = await pushed(image);
      const stuck: BlobStore = {
        ...blobs,
        get: async (d, range) => (d === layer ? new PassThrough() : blobs.get(d, range)),
      };
      const w = worker({ blobs: stuck });
      await inState(digest, "scanning");
      await w.close();
      const row = await scanOf(digest);
      assert.equal(row.state, "pending");
      assert.equal(row.claim_time, null);
      assert.equal(row.attempts, 0);
    });
  });
}
