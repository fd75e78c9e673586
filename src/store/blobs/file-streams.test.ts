import assert from "node:assert/strict";
import { createHash, randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, mkdtemp, open, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable, Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { blockBytes } from "./blocks.ts";
import { copyFileRange, type WriteTarget, writeStream } from "./file-streams.ts";
import { createBlockHasher } from "./hash-workers.ts";
import { sharedUploadMemory } from "./memory-budget.ts";

/** `bytes` as a stream of uneven chunks, as a socket delivers them. */
function unevenChunks(bytes: Buffer): Readable {
  const chunks: Buffer[] = [];
  for (let at = 0, i = 0; at < bytes.byteLength; i++) {
    const size = [65_536, 1, 300_001, 4096][i % 4];
    chunks.push(bytes.subarray(at, at + size));
    at += size;
  }
  return Readable.from(chunks);
}

/** A direct handle stand-in that counts writes, or refuses them as tmpfs would. */
function countingDirect(real: FileHandle | undefined, refuse = false) {
  const counted = { writes: 0 };
  const handle = {
    write(buffer: Buffer, offset: number, length: number, position: number) {
      counted.writes++;
      if (refuse || !real) {
        return Promise.reject(Object.assign(new Error("EINVAL"), { code: "EINVAL" }));
      }
      return real.write(buffer, offset, length, position);
    },
  } as unknown as FileHandle;
  return { handle, counted };
}

describe("file streams", () => {
  let dir: string;
  let n = 0;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lading-file-streams-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  /** Writes `bytes` after `prefix` bytes of zeros through `writeStream`; returns what happened. */
  async function write(
    bytes: Buffer,
    options: { prefix?: number; refuse?: boolean; readBack?: boolean } = {},
  ) {
    const path = join(dir, `f${n++}`);
    const prefix = options.prefix ?? 0;
    const handle = await open(path, "w+");
    await handle.write(Buffer.alloc(prefix), 0, prefix, 0);
    let real: FileHandle | undefined;
    try {
      real = await open(path, constants.O_WRONLY | constants.O_DIRECT);
    } catch {
      real = undefined; // no O_DIRECT here: the stand-in refuses like the kernel would
    }
    const { handle: direct, counted } = countingDirect(real, options.refuse);
    const reader = options.readBack ? await open(path, "r") : undefined;
    const readsBack: number[] = [];
    const readBack = reader && {
      read(buffer: Buffer, offset: number, length: number, position: number) {
        readsBack.push(position);
        return reader.read(buffer, offset, length, position);
      },
    };
    const target: WriteTarget = { handle, direct, readBack: readBack as FileHandle | undefined };
    const hasher = createBlockHasher("sha256");
    try {
      const written = await writeStream(
        target,
        unevenChunks(bytes),
        prefix,
        hasher,
        sharedUploadMemory,
      );
      return {
        written,
        digest: await hasher.digest(),
        file: await readFile(path),
        directWrites: counted.writes,
        directKept: target.direct !== undefined,
        directAvailable: real !== undefined,
        readsBack,
      };
    } finally {
      await reader?.close();
      await real?.close();
      await handle.close();
    }
  }

  const sha256 = (bytes: Buffer) => `sha256:${createHash("sha256").update(bytes).digest("hex")}`;

  for (const size of [0, 1, blockBytes - 1, blockBytes, 3 * blockBytes + 123]) {
    it(`writes and hashes ${size} bytes exactly, whole blocks directly`, async () => {
      const bytes = randomBytes(size);
      const result = await write(bytes);
      assert.equal(result.written, size);
      assert.equal(result.digest, sha256(bytes));
      assert.deepEqual(result.file, bytes);
      const wholeBlocks = Math.floor(size / blockBytes);
      if (result.directAvailable) {
        assert.equal(result.directWrites, wholeBlocks);
        assert.equal(result.directKept, true);
      }
    });
  }

  it("reads back every block it wrote past the page cache, and nothing else", async () => {
    const bytes = randomBytes(3 * blockBytes + 123);
    const result = await write(bytes, { readBack: true });
    assert.deepEqual(result.file, bytes);
    assert.equal(result.digest, sha256(bytes));
    const expected = result.directAvailable ? [0, blockBytes, 2 * blockBytes] : [];
    assert.deepEqual(
      result.readsBack.sort((a, b) => a - b),
      expected,
    );
  });

  it("writes through the page cache from an unaligned position", async () => {
    const bytes = randomBytes(2 * blockBytes);
    const result = await write(bytes, { prefix: 1000 });
    assert.equal(result.directWrites, 0);
    assert.deepEqual(result.file.subarray(1000), bytes);
    assert.equal(result.digest, sha256(bytes));
  });

  it("falls back to the page cache for good when a direct write is refused", async () => {
    const bytes = randomBytes(3 * blockBytes);
    const result = await write(bytes, { refuse: true });
    assert.equal(result.directWrites, 1, "one refusal, then no more direct attempts");
    assert.equal(result.directKept, false);
    assert.deepEqual(result.file, bytes);
    assert.equal(result.digest, sha256(bytes));
  });

  it("copies any byte range of a file to a writable, block by block", async () => {
    const bytes = randomBytes(2 * blockBytes + 7);
    const path = join(dir, "range");
    await (await open(path, "w")).writeFile(bytes);
    for (const [start, end] of [
      [0, bytes.byteLength - 1],
      [5, 5],
      [blockBytes - 3, blockBytes + 2],
      [100, bytes.byteLength - 2],
    ]) {
      const received: Buffer[] = [];
      const out = new Writable({
        write(chunk, _encoding, done) {
          received.push(Buffer.from(chunk)); // a copy: the block is reused after `done`
          done();
        },
      });
      const handle = await open(path, "r");
      try {
        await copyFileRange(handle, start, end, out);
      } finally {
        await handle.close();
      }
      assert.deepEqual(Buffer.concat(received), bytes.subarray(start, end + 1));
    }
  });

  it("rejects when the writable fails, and when the file is shorter than the range", async () => {
    const path = join(dir, "short");
    await (await open(path, "w")).writeFile(randomBytes(10));
    const handle = await open(path, "r");
    try {
      const failing = new Writable({ write: (_c, _e, done) => done(new Error("peer gone")) });
      failing.on("error", () => undefined);
      await assert.rejects(copyFileRange(handle, 0, 9, failing), /peer gone/);
      const sink = new Writable({ write: (_c, _e, done) => done() });
      await assert.rejects(copyFileRange(handle, 0, 99, sink), /ended 90 bytes early/);
    } finally {
      await handle.close();
    }
  });
});
