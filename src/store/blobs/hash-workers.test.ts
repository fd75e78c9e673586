import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { blockBytes, borrowBlocks, returnBlocks } from "./blocks.ts";
import { createBlockHasher } from "./hash-workers.ts";

/** Hashes `parts` through a block hasher, one block each, and returns its digest. */
async function hashOnWorker(algorithm: "sha256" | "sha512", parts: Buffer[]) {
  const hasher = createBlockHasher(algorithm);
  let [block] = borrowBlocks(1);
  for (const part of parts) {
    part.copy(block);
    block = await hasher.update(block, part.byteLength);
    assert.equal(block.byteLength, blockBytes, "the block comes back whole");
  }
  returnBlocks([block]);
  return { digest: await hasher.digest(), size: hasher.size };
}

describe("block hashers", () => {
  for (const algorithm of ["sha256", "sha512"] as const) {
    it(`computes the same ${algorithm} as node:crypto over blocks of any length`, async () => {
      const parts = [randomBytes(blockBytes), randomBytes(1), randomBytes(12_345), Buffer.alloc(0)];
      const expected = createHash(algorithm);
      for (const part of parts) expected.update(part);
      const { digest, size } = await hashOnWorker(algorithm, parts);
      assert.equal(digest, `${algorithm}:${expected.digest("hex")}`);
      assert.equal(size, blockBytes + 1 + 12_345);
    });
  }

  it("keeps interleaved hashers apart", async () => {
    const a = randomBytes(4096);
    const b = randomBytes(4096);
    const [first, second] = [createBlockHasher("sha256"), createBlockHasher("sha256")];
    const [blockA, blockB] = borrowBlocks(2);
    a.copy(blockA);
    b.copy(blockB);
    const back = await Promise.all([first.update(blockA, 4096), second.update(blockB, 4096)]);
    returnBlocks(back);
    const sha = (bytes: Buffer) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
    assert.deepEqual(await Promise.all([first.digest(), second.digest()]), [sha(a), sha(b)]);
  });

  it("detaches a block while the worker has it", async () => {
    const hasher = createBlockHasher("sha256");
    const [block] = borrowBlocks(1);
    const pending = hasher.update(block, 10);
    assert.equal(block.byteLength, 0, "the block moved to the worker");
    returnBlocks([block, await pending]);
    hasher.discard();
  });

  it("refuses a digest after discard or a second digest", async () => {
    const discarded = createBlockHasher("sha256");
    discarded.discard();
    await assert.rejects(discarded.digest(), /spent/);
    const done = createBlockHasher("sha256");
    assert.equal(
      await done.digest(),
      `sha256:${createHash("sha256").update(Buffer.alloc(0)).digest("hex")}`,
    );
    await assert.rejects(done.digest(), /spent/);
  });

  it("an idle worker keeps no process alive, even one only ever told to discard", async () => {
    // In a process of its own: the worker pool is per process, and this one has workers busy.
    const script = `
      import { createBlockHasher } from ${JSON.stringify(new URL("./hash-workers.ts", import.meta.url).href)};
      createBlockHasher("sha256").discard();
      setTimeout(() => { console.log("still alive"); process.exit(1); }, 5000).unref();
    `;
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      timeout: 20_000,
      encoding: "utf8",
    });
    assert.equal(child.signal, null, "the process ended by itself");
    assert.equal(child.status, 0, child.stdout + child.stderr);
  });
});
