export * from "./blob-store.ts";
export { type BlobStoreLocation, parseBlobStoreUrl } from "./blob-store-url.ts";
export { collectReleasedBuffers, relieveBuffers } from "./buffer-relief.ts";
export { type BlobStoreOptions, createBlobStore } from "./create-blob-store.ts";
export {
  type DecompressionBudget,
  DecompressionBudgetExceeded,
  decompressWithin,
} from "./decompression-budget.ts";
export { InvalidDigestError, isDigest, type ParsedDigest, parseDigest } from "./digest.ts";
export {
  createFilesystemBlobStore,
  type FilesystemBlobStoreOptions,
} from "./filesystem-blob-store.ts";
export type { S3BlobStoreOptions } from "./s3-blob-store.ts";
