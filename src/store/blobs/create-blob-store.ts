import { join } from "node:path";
import type { BlobStoreDriver } from "./blob-store.ts";
import { parseBlobStoreUrl } from "./blob-store-url.ts";
import { createFilesystemBlobStore } from "./filesystem-blob-store.ts";
import { MemoryBudget } from "./memory-budget.ts";

/** Options of {@link createBlobStore}. */
export interface BlobStoreOptions {
  /** The data directory; the filesystem driver keeps blobs in `<dataDir>/blobs`. */
  dataDir: string;
  /** `s3://bucket/prefix?…` (see parseBlobStoreUrl); default: the filesystem driver. */
  blobStoreUrl?: string;
  /** Buffer memory every upload shares (see MemoryBudget); default 128 MiB, process-wide. */
  uploadMemoryBytes?: number;
}

/**
 * Opens the configured blob store; rejects on a malformed URL. The S3 driver (and the AWS SDK,
 * some 30 MiB of memory) is loaded only when an s3:// URL asks for it.
 */
export async function createBlobStore(config: BlobStoreOptions): Promise<BlobStoreDriver> {
  const memory =
    config.uploadMemoryBytes === undefined ? undefined : new MemoryBudget(config.uploadMemoryBytes);
  if (config.blobStoreUrl === undefined || config.blobStoreUrl === "") {
    return createFilesystemBlobStore({ dir: join(config.dataDir, "blobs"), memory });
  }
  const { value, error } = parseBlobStoreUrl(config.blobStoreUrl);
  if (!value) throw new Error(`blob store: ${error}`);
  const { createS3BlobStore } = await import("./s3-blob-store.ts");
  return createS3BlobStore({ ...value.options, memory });
}
