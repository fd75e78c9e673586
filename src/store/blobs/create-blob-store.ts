import { join } from "node:path";
import type { BlobStoreDriver } from "./blob-store.ts";
import { parseBlobStoreUrl } from "./blob-store-url.ts";
import { createFilesystemBlobStore } from "./filesystem-blob-store.ts";
import { createS3BlobStore } from "./s3-blob-store.ts";

/** Options of {@link createBlobStore}. */
export interface BlobStoreOptions {
  /** The data directory; the filesystem driver keeps blobs in `<dataDir>/blobs`. */
  dataDir: string;
  /** `s3://bucket/prefix?…` (see parseBlobStoreUrl); default: the filesystem driver. */
  blobStoreUrl?: string;
}

/** Opens the configured blob store; throws on a malformed URL. */
export function createBlobStore(config: BlobStoreOptions): BlobStoreDriver {
  if (config.blobStoreUrl === undefined || config.blobStoreUrl === "") {
    return createFilesystemBlobStore({ dir: join(config.dataDir, "blobs") });
  }
  const { value, error } = parseBlobStoreUrl(config.blobStoreUrl);
  if (!value) throw new Error(`blob store: ${error}`);
  return createS3BlobStore(value.options);
}
