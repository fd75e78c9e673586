import assert from "node:assert/strict";
import { constants } from "node:fs";
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  blockBytes,
  borrowAlignedBlocks,
  borrowBlocks,
  isAligned,
  pooledBytes,
  returnBlocks,
  trimIdleBlocks,
} from "./blocks.ts";

describe("blocks", () => {
  it("lends movable blocks that are each a whole ArrayBuffer, and reuses returned ones", () => {
    const [a, b] = borrowBlocks(2);
    for (const block of [a, b]) {
      assert.equal(block.byteLength, blockBytes);
      assert.equal(block.byteOffset, 0);
      assert.equal(block.buffer.byteLength, blockBytes);
    }
    assert.notEqual(a.buffer, b.buffer);
    returnBlocks([a]);
    assert.equal(borrowBlocks(1)[0].buffer, a.buffer);
  });

  it("drops a detached block instead of lending it again", () => {
    const [block] = borrowBlocks(1);
    structuredClone(block.buffer, { transfer: [block.buffer as ArrayBuffer] });
    returnBlocks([block]);
    assert.equal(borrowBlocks(1)[0].byteLength, blockBytes);
  });

  it("lends aligned blocks that O_DIRECT accepts", async () => {
    const blocks = borrowAlignedBlocks(3);
    assert.ok(blocks.every(isAligned));
    assert.ok(!isAligned(borrowBlocks(1)[0]));
    const dir = await mkdtemp(join(tmpdir(), "lading-blocks-"));
    try {
      let direct: Awaited<ReturnType<typeof open>>;
      try {
        direct = await open(
          join(dir, "f"),
          constants.O_CREAT | constants.O_WRONLY | constants.O_DIRECT,
        );
      } catch (error) {
        // A filesystem without O_DIRECT (tmpfs): the store falls back; nothing to check here.
        assert.equal((error as NodeJS.ErrnoException).code, "EINVAL");
        return;
      }
      try {
        for (const [i, block] of blocks.entries()) {
          const { bytesWritten } = await direct.write(block, 0, blockBytes, i * blockBytes);
          assert.equal(bytesWritten, blockBytes);
        }
      } finally {
        await direct.close();
        returnBlocks(blocks);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

it("lets go of all but 8 spare blocks and one slab once trimmed", () => {
  const MiB = 1 << 20;
  const aligned = borrowAlignedBlocks(40);
  const plain = borrowBlocks(20);
  assert.ok(aligned.every(isAligned));
  returnBlocks(aligned);
  returnBlocks(plain);
  assert.ok(pooledBytes() >= 68 * MiB, `${pooledBytes() / MiB} MiB pooled`);
  trimIdleBlocks();
  assert.ok(pooledBytes() <= 24 * MiB, `${pooledBytes() / MiB} MiB pooled after the trim`);
  // And it lends as before.
  const again = borrowAlignedBlocks(40);
  assert.ok(again.every(isAligned));
  returnBlocks(again);
});
