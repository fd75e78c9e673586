import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { MemoryBudget } from "../../src/store/blobs/memory-budget.ts";
import { blobDrivers, createTestBlobStore, type TestBlobStore } from "./drivers.ts";

const MiB = 1 << 20;

/** A body in 64 KiB chunks that records the most `budget` ever lent while it was read. */
function watchedBody(bytes: Buffer, budget: MemoryBudget, seen: { most: number }) {
  return Readable.from(
    (function* () {
      for (let at = 0; at < bytes.byteLength; at += 64 * 1024) {
        seen.most = Math.max(seen.most, budget.used);
        yield bytes.subarray(at, at + 64 * 1024);
      }
    })(),
  );
}

/**
 * Writes of every kind, many at once, through a budget far smaller than they would take each on
 * their own: all complete, none waits forever, and the budget never lends more than its limit.
 */
for (const driver of blobDrivers) {
  describe(`upload memory budget [${driver}]`, () => {
    let location: TestBlobStore;
    before(async () => {
      location = await createTestBlobStore(driver);
    });
    after(() => location?.cleanup());

    it("completes 12 concurrent puts and chunked uploads within one small budget", async () => {
      // The S3 suite uses 5 MiB parts: this budget holds two of them, or five filesystem slots.
      const budget = new MemoryBudget(10 * MiB);
      const store = location.open({ memory: budget });
      const seen = { most: 0 };
      const blobs = Array.from({ length: 12 }, () => randomBytes(6 * MiB + 123));
      const digestOf = (bytes: Buffer) =>
        `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
      const stored = await Promise.all(
        blobs.map(async (bytes, i) => {
          if (i % 2 === 0) {
            return store.put(watchedBody(bytes, budget, seen), { expectedDigest: digestOf(bytes) });
          }
          let state = await store.createUpload();
          const half = 3 * MiB;
          state = await store.appendUpload(
            state,
            watchedBody(bytes.subarray(0, half), budget, seen),
          );
          state = await store.appendUpload(state, watchedBody(bytes.subarray(half), budget, seen));
          return store.commitUpload(state, digestOf(bytes));
        }),
      );
      assert.deepEqual(
        stored.map((blob) => blob.digest),
        blobs.map(digestOf),
      );
      assert.ok(seen.most > 0 && seen.most <= budget.limit, `lent ${seen.most} bytes at most`);
      assert.equal(budget.used, 0);
      for (const [i, bytes] of blobs.entries()) {
        if (i % 5 !== 0) continue;
        const chunks: Buffer[] = [];
        for await (const chunk of await store.get(digestOf(bytes))) chunks.push(chunk as Buffer);
        assert.ok(Buffer.concat(chunks).equals(bytes));
      }
    });
  });
}
