import type { FileHandle } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { DigestAlgorithm } from "./blob-store.ts";
import {
  blockBytes,
  borrowAlignedBlocks,
  borrowBlocks,
  isAligned,
  returnBlocks,
} from "./blocks.ts";
import { relieveBuffers } from "./buffer-relief.ts";
import { createDigestHasher } from "./digest.ts";
import type { BlockHasher } from "./hash-workers.ts";
import { trimWhenIdle } from "./idle-trim.ts";
import type { MemoryBudget, MemoryLease } from "./memory-budget.ts";

/** File offsets of direct writes are multiples of this (the largest common logical block size). */
const directAlignment = 4096;
/** Most blocks per blob being written: one fills while the others are hashed and written. */
const maxWriteDepth = 4;
/** Memory of one slot: its block to hash and its block to write. */
const slotBytes = 2 * blockBytes;

/** The file {@link writeStream} writes to. */
export interface WriteTarget {
  handle: FileHandle;
  /**
   * The same file opened with `O_DIRECT`, when the filesystem allows it. Whole aligned blocks go
   * through it, past the page cache: filling the page cache costs more CPU than hashing, and
   * fresh blobs are seldom read back at once. Set to undefined when the kernel refuses one.
   */
  direct?: FileHandle;
  /**
   * The same file opened for reading. Each block written past the page cache is read back
   * through it, one after another, so the cache holds a blob when it is pulled right after its
   * push: a blob written with `O_DIRECT` alone is first read from disk, at about half the speed
   * of a cached one. A read back costs a disk read and a copy per block, far less CPU than a
   * write through the cache. A block is written again only once it has been read back.
   */
  readBack?: FileHandle;
}

/**
 * Writes `body` at `position` and returns the byte count. Chunks are copied into 1 MiB blocks,
 * twice: one copy moves to `hasher`'s worker thread to be hashed, the other, page-aligned, is
 * written; both happen while the next blocks fill, so the event loop does little but copy.
 * The blocks are lent by `budget`: one slot (2 MiB) is waited for before the body is read, up
 * to three more are taken only when free at once, and all go back when the write ends.
 */
export async function writeStream(
  target: WriteTarget,
  body: Readable,
  position: number,
  hasher: BlockHasher,
  budget: MemoryBudget,
): Promise<number> {
  const leases: MemoryLease[] = [await budget.acquire(slotBytes)];
  for (let extra: MemoryLease | undefined; leases.length < maxWriteDepth; leases.push(extra)) {
    extra = budget.tryAcquire(slotBytes);
    if (!extra) break;
  }
  try {
    return await writeSlots(target, body, position, hasher, leases.length);
  } finally {
    for (const lease of leases) lease.release();
    if (budget.used === 0) trimWhenIdle(budget);
  }
}

async function writeSlots(
  target: WriteTarget,
  body: Readable,
  position: number,
  hasher: BlockHasher,
  writeDepth: number,
): Promise<number> {
  const toHash = borrowBlocks(writeDepth);
  const toWrite = borrowAlignedBlocks(writeDepth);
  const busy: Array<Promise<void> | undefined> = toHash.map(() => undefined);
  let current = 0;
  let filled = 0;
  let offset = position;
  /** Starts hashing and writing the current block; resolves when the next slot is free. */
  const ship = () => {
    const slot = current;
    const hashed = hasher.update(toHash[slot], filled).then((block) => {
      toHash[slot] = block;
    });
    const at = offset;
    const length = filled;
    // The block's bytes are on disk once the direct write returns, so reading them back into
    // the same block costs no memory, and the slot is free again once they are cached.
    const written = writeBlock(target, toWrite[slot], length, at).then(async (direct) => {
      if (direct && target.readBack) {
        await target.readBack.read(toWrite[slot], 0, length, at).catch(() => undefined);
      }
    });
    const done = Promise.all([hashed, written]).then(() => undefined);
    done.catch(() => undefined);
    busy[slot] = done;
    offset += filled;
    filled = 0;
    current = (current + 1) % writeDepth;
    return busy[current];
  };
  try {
    for await (const chunk of body) {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
      relieveBuffers(buffer.byteLength);
      for (let from = 0; from < buffer.byteLength; ) {
        const copied = buffer.copy(toHash[current], filled, from);
        buffer.copy(toWrite[current], filled, from, from + copied);
        from += copied;
        filled += copied;
        if (filled === blockBytes) await ship();
      }
    }
    if (filled > 0) ship();
    await Promise.all(busy);
  } finally {
    await Promise.allSettled(busy);
    returnBlocks(toHash);
    returnBlocks(toWrite);
  }
  return offset - position;
}

/** Writes one block; true when it went past the page cache. */
async function writeBlock(
  target: WriteTarget,
  block: Buffer,
  length: number,
  at: number,
): Promise<boolean> {
  const bytes = block.subarray(0, length);
  if (target.direct && length === blockBytes && at % directAlignment === 0 && isAligned(block)) {
    try {
      const { bytesWritten } = await target.direct.write(bytes, 0, length, at);
      await writeFully(target.handle, bytes.subarray(bytesWritten), at + bytesWritten);
      return bytesWritten === length;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EINVAL") throw error;
      target.direct = undefined;
    }
  }
  await writeFully(target.handle, bytes, at);
  return false;
}

async function writeFully(handle: FileHandle, buffer: Buffer, at: number): Promise<void> {
  for (let done = 0; done < buffer.byteLength; ) {
    const { bytesWritten } = await handle.write(buffer, done, buffer.byteLength - done, at + done);
    done += bytesWritten;
  }
}

/**
 * Copies bytes `start`..`end` (inclusive) of `handle` to `out` through two reused 1 MiB blocks:
 * one is read while the other is being written. A block is read into again only once `out` has
 * handed its bytes to the kernel, so nothing is allocated per chunk.
 */
export async function copyFileRange(
  handle: FileHandle,
  start: number,
  end: number,
  out: NodeJS.WritableStream,
): Promise<void> {
  const blocks = borrowBlocks(2);
  const sent: Promise<void>[] = blocks.map(() => Promise.resolve());
  try {
    for (let at = start, i = 0; at <= end; i = (i + 1) % blocks.length) {
      await sent[i];
      const length = Math.min(blockBytes, end + 1 - at);
      const { bytesRead } = await handle.read(blocks[i], 0, length, at);
      if (bytesRead === 0) throw new Error(`the file ended ${end + 1 - at} bytes early`);
      at += bytesRead;
      sent[i] = new Promise((resolve, reject) =>
        out.write(blocks[i].subarray(0, bytesRead), (error) => (error ? reject(error) : resolve())),
      );
      sent[i].catch(() => undefined);
    }
    await Promise.all(sent);
  } finally {
    await Promise.allSettled(sent);
    returnBlocks(blocks);
  }
}

/** The digest of the first `size` bytes of the file. */
export async function hashFile(handle: FileHandle, size: number, algorithm: DigestAlgorithm) {
  const hasher = createDigestHasher(algorithm);
  if (size > 0) {
    const stream = handle.createReadStream({
      start: 0,
      end: size - 1,
      autoClose: false,
      highWaterMark: 1 << 20,
    });
    for await (const chunk of stream) hasher.update(chunk as Buffer);
  }
  return hasher.digest();
}
