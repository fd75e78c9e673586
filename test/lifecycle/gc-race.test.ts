import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout } from "node:timers/promises";
import type { GcReport } from "../../src/lifecycle/index.ts";
import { ociClient } from "../support/oci-client.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import {
  chunkedBlob,
  ensureBlob,
  imageManifest,
  indexManifest,
  mountBlob,
  postBlob,
  pullFully,
  putManifest,
  RetryablePush,
  randomLayer,
  sha256,
} from "./gc-push.ts";

const rounds = Number(process.env.GC_RACE_ROUNDS ?? 8);

/**
 * Pushes of every kind (single POST, chunked, cross-repo mount, HEAD-then-skip, indexes with
 * children pushed by digest) race collections run back to back with a grace window and a
 * history retention of zero, while tags are deleted to make garbage; then every tag still
 * present is pulled fully and every deleted image's own blobs are gone from the store.
 */
for (const pair of registryPairs) {
  describe(`garbage collection racing pushes [${pair.store}, ${pair.blobs}]`, () => {
    let reg: RegistryTestServer;
    before(async () => {
      reg = await startRegistryServer(pair, {
        gcInterval: "off",
        gcGrace: "0s",
        gcHistoryRetention: "0s",
      });
    });
    after(() => reg?.close());

    it("never leaves a pushed manifest with a missing blob, and collects the garbage", async () => {
      const client = ociClient(reg.registryUrl, reg.ownerToken);
      const gc = reg.server.lading.gc;
      const shared = randomLayer();
      const base = imageManifest([shared], "base");
      for (const blob of base.blobs) await postBlob(client, "acme/base", blob);
      await putManifest(client, "acme/base", "keep", base);
      const live: { name: string; tag: string }[] = [{ name: "acme/base", tag: "keep" }];
      const dropped: Buffer[] = [];

      let stop = false;
      const reports: GcReport[] = [];
      const collector = (async () => {
        while (!stop) {
          reports.push(await gc.runNow("test", false));
          // With no grace window, whatever a push uploaded before a collection started is
          // garbage until its manifest lands: a pause lets pushes finish between collections.
          await setTimeout(Math.random() * 600);
        }
      })();

      let retries = 0;
      const attempt = async (push: () => Promise<void>) => {
        let last = "";
        for (let n = 0; n < 100; n++) {
          try {
            return await push();
          } catch (error) {
            if (!(error instanceof RetryablePush)) throw error;
            retries += 1;
            last = error.message;
          }
        }
        throw new Error(`a push was refused 100 times: ${last}`);
      };
      const pushes = [
        async (i: number) => {
          const m = imageManifest([randomLayer(), randomLayer()], `mono-${i}`);
          await attempt(async () => {
            for (const blob of m.blobs) await postBlob(client, "acme/mono", blob);
            await putManifest(client, "acme/mono", `t${i}`, m);
          });
          return { name: "acme/mono", tag: `t${i}`, own: m.blobs };
        },
        async (i: number) => {
          const m = imageManifest([randomLayer(300_000)], `chunked-${i}`);
          await attempt(async () => {
            await chunkedBlob(client, "acme/chunked", m.blobs[1]);
            await postBlob(client, "acme/chunked", m.blobs[0]);
            await putManifest(client, "acme/chunked", `t${i}`, m);
          });
          return { name: "acme/chunked", tag: `t${i}`, own: m.blobs };
        },
        async (i: number) => {
          const name = `acme/mount-${i % 2}`;
          const m = imageManifest([shared, randomLayer()], `mount-${i}`);
          await attempt(async () => {
            await mountBlob(client, name, "acme/base", shared);
            for (const blob of m.blobs.filter((b) => b !== shared))
              await ensureBlob(client, name, blob);
            await putManifest(client, name, `t${i}`, m);
          });
          return { name, tag: `t${i}`, own: [] };
        },
        async (i: number) => {
          const children = [0, 1].map((a) => imageManifest([randomLayer()], `index-${i}-${a}`));
          const index = indexManifest(children);
          await attempt(async () => {
            for (const child of children) {
              for (const blob of child.blobs) await ensureBlob(client, "acme/index", blob);
              await putManifest(client, "acme/index", child.digest, child);
            }
            await putManifest(client, "acme/index", `t${i}`, index);
          });
          return { name: "acme/index", tag: `t${i}`, own: children.flatMap((c) => c.blobs) };
        },
      ];
      let previous: { name: string; tag: string; own: Buffer[] }[] = [];
      try {
        for (let i = 0; i < rounds; i++) {
          const pushed = await Promise.all(pushes.map((push) => push(i)));
          // Last round's single-POST and index images become garbage; the rest stay.
          for (const p of previous) {
            if (p.name !== "acme/mono" && p.name !== "acme/index") {
              live.push(p);
              continue;
            }
            const res = await client.fetch(`/v2/${p.name}/manifests/${p.tag}`, {
              method: "DELETE",
            });
            assert.equal(res.status, 202);
            dropped.push(...p.own);
          }
          previous = pushed;
        }
      } finally {
        stop = true;
        await collector;
      }
      live.push(...previous);
      const last = await gc.runNow("test", false);
      reports.push(last);

      assert.deepEqual(
        reports.filter((r) => r.state !== "done").map((r) => r.error),
        [],
      );
      assert.ok(reports.length >= 3, `only ${reports.length} collections ran`);
      const deleted = reports.reduce((n, r) => n + r.manifestsDeleted, 0);
      assert.ok(deleted >= (rounds - 1) * 3, `only ${deleted} manifests collected`);
      for (const { name, tag } of live) await pullFully(client, name, tag);
      for (const blob of dropped) {
        assert.equal(await reg.server.lading.blobs.stat(sha256(blob)), undefined);
      }
      const runs = await reg.server.lading.store.db
        .selectFrom("gc_runs")
        .select((eb) => eb.fn.countAll<string | number>().as("n"))
        .executeTakeFirstOrThrow();
      assert.equal(Number(runs.n), reports.length);
      // Retries are the clean refusal a racing push may get; they are counted, not required.
      console.log(
        `${pair.store}: ${reports.length} collections, ${deleted} manifests, ${retries} retried pushes`,
      );
    });
  });
}
