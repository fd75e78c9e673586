import type { FileHandle } from "node:fs/promises";
import type { Readable } from "node:stream";
import type { DigestAlgorithm } from "./blob-store.ts";
import { relieveBuffers } from "./buffer-relief.ts";
import { createDigestHasher, type DigestHasher } from "./digest.ts";

const writeBatchBytes = 1 << 20;

/**
 * Writes `body` at `position` in batches of about 1 MiB, hashing each chunk while the previous
 * batch is being written; returns the byte count.
 */
export async function writeStream(
  handle: FileHandle,
  body: Readable,
  position: number,
  hasher?: DigestHasher,
): Promise<number> {
  let offset = position;
  let batch: Buffer[] = [];
  let batched = 0;
  let writing: Promise<void> = Promise.resolve();
  const writeAll = async (buffers: Buffer[], at: number) => {
    let cursor = at;
    while (buffers.length > 0) {
      const { bytesWritten } = await handle.writev(buffers, cursor);
      cursor += bytesWritten;
      dropWritten(buffers, bytesWritten);
    }
  };
  const flush = async () => {
    await writing;
    writing = writeAll(batch, offset);
    writing.catch(() => undefined);
    offset += batched;
    batch = [];
    batched = 0;
  };
  try {
    for await (const chunk of body) {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
      hasher?.update(buffer);
      batch.push(buffer);
      batched += buffer.byteLength;
      relieveBuffers(buffer.byteLength);
      if (batched >= writeBatchBytes) await flush();
    }
    if (batched > 0) await flush();
  } finally {
    await writing;
  }
  return offset - position;
}

function dropWritten(buffers: Buffer[], bytes: number) {
  let left = bytes;
  while (buffers.length > 0 && left >= buffers[0].byteLength) {
    left -= buffers[0].byteLength;
    buffers.shift();
  }
  if (left > 0 && buffers.length > 0) buffers[0] = buffers[0].subarray(left);
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
