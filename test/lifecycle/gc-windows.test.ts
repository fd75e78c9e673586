import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { CollectionBusyError, gcLeaseName } from "../../src/lifecycle/index.ts";
import { ociClient } from "../support/oci-client.ts";
import { registryPairs } from "../support/registry-server.ts";
import { imageManifest, postBlob, pullFully, putManifest, randomLayer, sha256 } from "./gc-push.ts";
import { operatorSetup } from "./operator-setup.ts";

/**
 * The windows with their defaults: an upload whose manifest is not pushed yet survives the
 * grace window, a digest a tag moved away from stays pullable through the history retention,
 * and both go once their window is over; the lease keeps a second collector out.
 */
for (const pair of registryPairs) {
  describe(`garbage collection windows and lease [${pair.store}, ${pair.blobs}]`, () => {
    const setup = operatorSetup(pair);

    it("keeps pending uploads and history for their windows, then collects them", async () => {
      const { reg, cli, store } = setup;
      const client = ociClient(reg.registryUrl, reg.ownerToken);
      const gc = reg.server.lading.gc;
      const pending = randomLayer();
      await postBlob(client, "acme/app", pending);
      const first = imageManifest([randomLayer()], "first");
      const second = imageManifest([randomLayer()], "second");
      for (const m of [first, second]) {
        for (const blob of m.blobs) await postBlob(client, "acme/app", blob);
        await putManifest(client, "acme/app", "x", m);
      }
      const dry = await gc.runNow("test", true);
      assert.deepEqual([dry.manifestsDeleted, dry.linksDeleted, dry.blobsDeleted], [0, 0, 0]);
      const run = await gc.runNow("test", false);
      assert.deepEqual([run.state, run.manifestsDeleted, run.blobsDeleted], ["done", 0, 0]);
      const head = await client.fetch(`/v2/acme/app/blobs/${sha256(pending)}`, { method: "HEAD" });
      assert.equal(head.status, 200);
      await pullFully(client, "acme/app", first.digest);

      // Grace over, history still kept: the pending upload goes, the old digest stays.
      const graceOver = JSON.parse(await cli.ok("admin", "gc", ...store, "--gc-grace", "0s"));
      assert.equal(graceOver.state, "done");
      assert.equal(graceOver.linksDeleted, 1);
      assert.equal(graceOver.blobsDeleted, 1);
      assert.equal(await reg.server.lading.blobs.stat(sha256(pending)), undefined);
      await pullFully(client, "acme/app", first.digest);

      // History retention over too: the digest the tag left goes with its own blobs.
      const all = ["--gc-grace", "0s", "--gc-history-retention", "0s"];
      const historyOver = JSON.parse(await cli.ok("admin", "gc", ...store, ...all));
      assert.equal(historyOver.manifestsDeleted, 1);
      assert.equal(historyOver.blobsDeleted, first.blobs.length + 1);
      const goneManifest = await client.fetch(`/v2/acme/app/manifests/${first.digest}`);
      assert.equal(goneManifest.status, 404);
      for (const blob of first.blobs) {
        assert.equal(await reg.server.lading.blobs.stat(sha256(blob)), undefined);
      }
      await pullFully(client, "acme/app", "x");
    });

    it("lets one collector run at a time", async () => {
      const { reg, cli, store } = setup;
      const db = reg.server.lading.store.db;
      const future = new Date(Date.now() + 60_000).toISOString();
      await db
        .insertInto("leases")
        .values({ name: gcLeaseName, holder: "another-replica", expire_time: future })
        .execute();
      await assert.rejects(reg.server.lading.gc.runNow("test", false), CollectionBusyError);
      const refused = await cli.run(["admin", "gc", ...store]);
      assert.equal(refused.code, 1);
      assert.match(refused.stderr, /another garbage collection is running/);
      // A lease its holder stopped renewing is taken over.
      const past = new Date(Date.now() - 1000).toISOString();
      await db.updateTable("leases").set({ expire_time: past }).execute();
      assert.equal((await reg.server.lading.gc.runNow("test", false)).state, "done");
      assert.equal((await db.selectFrom("leases").selectAll().execute()).length, 0);
    });
  });
}
