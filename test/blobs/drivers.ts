import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type BlobStoreDriver, createFilesystemBlobStore } from "../../src/store/blobs/index.ts";
import type { MemoryBudget } from "../../src/store/blobs/memory-budget.ts";
import { createS3BlobStore } from "../../src/store/blobs/s3-blob-store.ts";
import { startS3rver } from "../support/s3rver.ts";

/**
 * Every blob driver, so the contract suite runs on each; the filesystem driver both with its
 * direct (O_DIRECT) writes and through the page cache only, as on filesystems without O_DIRECT.
 */
export const blobDrivers = ["filesystem", "filesystem-page-cache", "s3"] as const;

/** A fresh, empty blob store location; `open` makes a new instance on it, as another replica would. */
export interface TestBlobStore {
  /** `memory` lends the writes their buffers (default the process-wide budget). */
  open(options?: { memory?: MemoryBudget }): BlobStoreDriver;
  /**
   * Where the bytes lie on disk: the filesystem store's directory, or for S3 the directory of
   * the store's prefix inside the s3rver's files (one `<name>._S3rver_object` file per key).
   */
  dir: string;
  cleanup(): Promise<void>;
}

/** The smallest part S3 accepts, so the suite exercises multipart uploads with little data. */
const testPartSize = 5 << 20;

/**
 * Creates an empty store location for `driver`; for S3, an s3rver on loopback with its own
 * directory and bucket.
 */
export async function createTestBlobStore(
  driver: (typeof blobDrivers)[number],
): Promise<TestBlobStore> {
  const dir = await mkdtemp(join(tmpdir(), `lading-blobs-${driver}-`));
  if (driver !== "s3") {
    const directIo = driver === "filesystem";
    return {
      open: (options = {}) => createFilesystemBlobStore({ dir, directIo, ...options }),
      dir,
      cleanup: () => rm(dir, { recursive: true, force: true }),
    };
  }
  const server = await startS3rver(dir, "lading-test");
  return {
    open: (options = {}) =>
      createS3BlobStore({
        ...options,
        bucket: "lading-test",
        prefix: "registry/blobs-test",
        endpoint: server.endpoint,
        region: "us-east-1",
        forcePathStyle: true,
        credentials: { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" },
        partSize: testPartSize,
      }),
    dir: join(dir, "lading-test", "registry", "blobs-test"),
    async cleanup() {
      await server.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
