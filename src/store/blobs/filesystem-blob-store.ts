import { randomBytes } from "node:crypto";
import { constants } from "node:fs";
import { type FileHandle, mkdir, open, rename, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import {
  BlobNotFoundError,
  type BlobStoreDriver,
  DigestMismatchError,
  InvalidUploadStateError,
  type StoredBlob,
  UploadNotFoundError,
  type UploadState,
} from "./blob-store.ts";
import { clampRange } from "./byte-range.ts";
import { pickAlgorithm, requireDigest } from "./digest.ts";
import { copyFileRange, hashFile, type WriteTarget, writeStream } from "./file-streams.ts";
import { type BlockHasher, createBlockHasher } from "./hash-workers.ts";
import { type MemoryBudget, sharedUploadMemory } from "./memory-budget.ts";
import { ignoreMissing, sweepTempFiles, tempNamePattern } from "./temp-files.ts";

/** Options of {@link createFilesystemBlobStore}. */
export interface FilesystemBlobStoreOptions {
  /** Root directory; `blobs/` and `tmp/` are created inside it (same filesystem, so renames are atomic). */
  dir: string;
  /**
   * Whether to fsync files and directories before reporting success. Default true: a blob the
   * registry has acknowledged must survive a power loss.
   */
  fsync?: boolean;
  /**
   * Whether to write whole 1 MiB blocks with `O_DIRECT`, past the page cache. Default true; it
   * turns itself off on filesystems that refuse it (tmpfs, for one) and where the platform has
   * no `O_DIRECT`.
   */
  directIo?: boolean;
  /**
   * Whether blocks written with `O_DIRECT` are read back into the page cache as the upload
   * goes, so the first pull of a fresh blob is served from memory. Default true.
   */
  warmCache?: boolean;
  /** Lends every write its buffers; default the process-wide {@link sharedUploadMemory}. */
  memory?: MemoryBudget;
}

const maxRunningHashes = 4096;

/** Upload state of the filesystem driver. */
interface FilesystemUploadState extends UploadState {
  /** Name of the temp file under `<dir>/tmp`, always `upload-<32 hex>`. */
  file: string;
}

/**
 * A content-addressed store in a directory: blobs at `<dir>/blobs/<algorithm>/<2 hex>/<hex>`,
 * written to `<dir>/tmp` while hashing, fsynced, verified, then renamed into place.
 */
export function createFilesystemBlobStore(options: FilesystemBlobStoreOptions): BlobStoreDriver {
  const { dir } = options;
  const durable = options.fsync ?? true;
  let directIo = (options.directIo ?? true) && constants.O_DIRECT !== undefined;
  const warmCache = options.warmCache ?? true;
  const memory = options.memory ?? sharedUploadMemory;
  const tmpDir = join(dir, "tmp");
  /** Running digests of uploads in progress on this replica, by temp file name. */
  const running = new Map<string, BlockHasher>();
  const forget = (file: string) => {
    running.get(file)?.discard();
    running.delete(file);
  };
  let ready: Promise<unknown> | undefined;
  const ensureDirs = () => {
    ready ??= Promise.all([
      mkdir(tmpDir, { recursive: true }),
      mkdir(join(dir, "blobs"), { recursive: true }),
    ]);
    return ready;
  };

  const blobPath = (digest: string) => {
    const { algorithm, hex } = requireDigest(digest);
    return join(dir, "blobs", algorithm, hex.slice(0, 2), hex);
  };

  const syncDir = async (path: string) => {
    if (!durable) return;
    const handle = await open(path, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  };

  const publish = async (tempPath: string, digest: string) => {
    const finalPath = blobPath(digest);
    const parent = join(finalPath, "..");
    await mkdir(parent, { recursive: true });
    await rename(tempPath, finalPath);
    await syncDir(parent);
  };

  const openDirect = async (path: string) => {
    if (!directIo) return undefined;
    try {
      return await open(path, constants.O_WRONLY | constants.O_DIRECT);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EINVAL") throw error;
      directIo = false;
      return undefined;
    }
  };

  /** Writes `body` into the open file at `position`, through a direct handle when it can. */
  const writeFile = async (
    path: string,
    handle: FileHandle,
    body: Readable,
    position: number,
    hasher: BlockHasher,
  ) => {
    const direct = await openDirect(path);
    const readBack = direct && warmCache ? await open(path, "r") : undefined;
    const target: WriteTarget = { handle, direct, readBack };
    try {
      return await writeStream(target, body, position, hasher, memory);
    } finally {
      if (direct && !target.direct) directIo = false;
      await direct?.close();
      await readBack?.close();
    }
  };

  const uploadPath = (state: UploadState) => {
    const { size, file } = state as FilesystemUploadState;
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new InvalidUploadStateError("size must be a non-negative integer");
    }
    if (typeof file !== "string" || !tempNamePattern.test(file) || !file.startsWith("upload-")) {
      throw new InvalidUploadStateError("not an upload file of this store");
    }
    return { size, file, path: join(tmpDir, file) };
  };

  const openUpload = async (path: string, size: number) => {
    let handle: FileHandle;
    try {
      handle = await open(path, "r+");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") {
        throw new UploadNotFoundError("its temporary file is gone");
      }
      throw error;
    }
    const { size: onDisk } = await handle.stat();
    if (onDisk < size) {
      await handle.close();
      throw new InvalidUploadStateError(`state says ${size} bytes, the file has ${onDisk}`);
    }
    if (onDisk > size) await handle.truncate(size);
    return handle;
  };

  return {
    async put(body, putOptions) {
      const { algorithm, expected } = pickAlgorithm(putOptions);
      await ensureDirs();
      const tempPath = join(tmpDir, `put-${randomBytes(16).toString("hex")}`);
      const hasher = createBlockHasher(algorithm);
      let handle: FileHandle;
      try {
        handle = await open(tempPath, "wx");
      } catch (error) {
        hasher.discard();
        throw error;
      }
      try {
        try {
          await writeFile(tempPath, handle, body, 0, hasher);
          if (durable) await handle.sync();
        } finally {
          await handle.close();
        }
        const digest = await hasher.digest();
        if (expected && expected.digest !== digest) {
          throw new DigestMismatchError(expected.digest, digest);
        }
        await publish(tempPath, digest);
        return { digest, size: hasher.size };
      } catch (error) {
        hasher.discard();
        await unlink(tempPath).catch(ignoreMissing);
        throw error;
      }
    },

    async stat(digest) {
      try {
        const { size } = await stat(blobPath(digest));
        return { size };
      } catch (error) {
        ignoreMissing(error);
        return undefined;
      }
    },

    async get(digest, range) {
      let handle: FileHandle;
      try {
        handle = await open(blobPath(digest), "r");
      } catch (error) {
        ignoreMissing(error);
        throw new BlobNotFoundError(digest);
      }
      try {
        const { size } = await handle.stat();
        const { start, end } = range ? clampRange(range, size) : { start: 0, end: size - 1 };
        // An empty blob has no last byte to name: the stream just reads to the end.
        const last = end >= start ? { end } : {};
        const stream = handle.createReadStream({ start, ...last, highWaterMark: 1 << 20 });
        const sendTo = (out: NodeJS.WritableStream) =>
          copyFileRange(handle, start, end, out).finally(() => stream.destroy());
        return Object.assign(stream, { sendTo });
      } catch (error) {
        await handle.close();
        throw error;
      }
    },

    async delete(digest) {
      await unlink(blobPath(digest)).catch(ignoreMissing);
    },

    async deleteMany(digests) {
      // A few unlinks at a time: enough to overlap the file system's latency, not flood it.
      for (let i = 0; i < digests.length; i += 16) {
        await Promise.all(
          digests.slice(i, i + 16).map((d) => unlink(blobPath(d)).catch(ignoreMissing)),
        );
      }
    },

    async createUpload() {
      await ensureDirs();
      const file = `upload-${randomBytes(16).toString("hex")}`;
      const handle = await open(join(tmpDir, file), "wx");
      await handle.close();
      return { size: 0, file } satisfies FilesystemUploadState;
    },

    async appendUpload(state, body) {
      const { size, file, path } = uploadPath(state);
      let hasher = running.get(file);
      if (hasher && hasher.size !== size) {
        forget(file);
        hasher = undefined;
      }
      if (!hasher && size === 0) {
        if (running.size >= maxRunningHashes) forget(running.keys().next().value as string);
        hasher = createBlockHasher("sha256");
        running.set(file, hasher);
      }
      // Without the running digest (another replica or process began it), the bytes still go
      // through a worker; the commit hashes the whole file instead.
      const writer = hasher ?? createBlockHasher("sha256");
      const handle = await openUpload(path, size);
      let written: number;
      try {
        written = await writeFile(path, handle, body, size, writer);
        if (durable) await handle.sync();
      } catch (error) {
        forget(file);
        throw error;
      } finally {
        if (!hasher) writer.discard();
        await handle.close();
      }
      return { ...state, size: size + written };
    },

    async commitUpload(state, expectedDigest) {
      const expected = requireDigest(expectedDigest);
      const { size, file, path } = uploadPath(state);
      const handle = await openUpload(path, size);
      let digest: string;
      try {
        const fast = running.get(file);
        running.delete(file);
        if (fast && fast.size === size && fast.algorithm === expected.algorithm) {
          digest = await fast.digest();
        } else {
          fast?.discard();
          digest = await hashFile(handle, size, expected.algorithm);
        }
      } finally {
        await handle.close();
      }
      if (digest !== expected.digest) throw new DigestMismatchError(expected.digest, digest);
      await publish(path, digest);
      return { digest, size } satisfies StoredBlob;
    },

    async abortUpload(state) {
      const { file, path } = uploadPath(state);
      forget(file);
      await unlink(path).catch(ignoreMissing);
    },

    async sweep(olderThanMs, keep = []) {
      await ensureDirs();
      const live = new Set<string>();
      for (const state of keep) {
        try {
          live.add(uploadPath(state).file);
        } catch {
          // Not this driver's state: nothing of it to keep.
        }
      }
      return sweepTempFiles(tmpDir, olderThanMs, live, forget);
    },
  };
}
