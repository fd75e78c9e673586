import type { Readable } from "node:stream";

/** A digest algorithm the registry accepts. */
export type DigestAlgorithm = "sha256" | "sha512";

/** A blob's identity once stored. */
export interface StoredBlob {
  /** `<algorithm>:<hex>`. */
  digest: string;
  size: number;
}

/** An inclusive byte range, as in an HTTP Range header. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * A blob's bytes as a stream. A store that can send them more cheaply than a stream does adds
 * `sendTo`, which writes them all to `out` (without ending it) and releases the blob; a caller
 * uses either the stream or `sendTo`, never both.
 */
export type BlobBody = Readable & { sendTo?: (out: NodeJS.WritableStream) => Promise<void> };

/**
 * Content-addressed blob storage (DESIGN §3). Content becomes visible under its digest only
 * after the digest has been verified; a crash mid-write leaves nothing visible. Every method
 * streams: no blob is ever held in memory whole.
 */
export interface BlobStore {
  /**
   * Streams `body` into the store, computing the digest on the fly. With `expectedDigest`, a
   * mismatch stores nothing and rejects with a DigestMismatchError.
   */
  put(
    body: Readable,
    options?: { expectedDigest?: string; algorithm?: DigestAlgorithm },
  ): Promise<StoredBlob>;
  /** Size of a stored blob, or undefined. */
  stat(digest: string): Promise<{ size: number } | undefined>;
  /**
   * A stream of the blob (or of `range` of it); rejects with BlobNotFoundError if missing. A
   * range ending beyond the blob is cut at its end; one starting at or beyond the end (or with
   * `end < start`) rejects with RangeNotSatisfiableError.
   */
  get(digest: string, range?: ByteRange): Promise<BlobBody>;
  /** Removes a blob; missing is fine. */
  delete(digest: string): Promise<void>;
  /**
   * Removes many blobs at once (S3: DeleteObjects, 1000 keys a request); missing is fine. A
   * store without it is emptied one `delete` at a time.
   */
  deleteMany?(digests: readonly string[]): Promise<void>;

  /** Starts a resumable upload; the returned state is kept by the caller (the metadata store). */
  createUpload(): Promise<UploadState>;
  /**
   * Appends `body` at `state.size` (the caller checks offsets) and returns the new state. Any
   * replica may append to an upload another one started. Rejects with UploadNotFoundError when
   * the upload is gone, InvalidUploadStateError when the state is not this driver's.
   */
  appendUpload(state: UploadState, body: Readable): Promise<UploadState>;
  /**
   * Verifies the whole upload against `expectedDigest` and makes it visible under it. On a
   * DigestMismatchError nothing becomes visible and the upload is left as it was (abort it).
   */
  commitUpload(state: UploadState, expectedDigest: string): Promise<StoredBlob>;
  /** Discards an upload. */
  abortUpload(state: UploadState): Promise<void>;
}

/** Driver state of an upload in progress, JSON-serialisable so any replica can continue it. */
export interface UploadState {
  /** Bytes received so far. */
  size: number;
  /** Driver-specific fields (temp file name, multipart upload id and parts, …). */
  [key: string]: unknown;
}

/** The content did not hash to the digest the client named. */
export class DigestMismatchError extends Error {
  readonly expected: string;
  readonly actual: string;

  constructor(expected: string, actual: string) {
    super(`content digest ${actual} does not match ${expected}`);
    this.expected = expected;
    this.actual = actual;
  }
}

/** No blob with that digest. */
export class BlobNotFoundError extends Error {
  readonly digest: string;

  constructor(digest: string) {
    super(`blob ${digest} not found`);
    this.digest = digest;
  }
}

/** No upload in progress matches the state (aborted, committed, swept, or never created). */
export class UploadNotFoundError extends Error {
  constructor(detail: string) {
    super(`upload not found: ${detail}`);
  }
}

/** Upload state that this driver did not produce (forged, corrupted, or another driver's). */
export class InvalidUploadStateError extends Error {
  constructor(reason: string) {
    super(`invalid upload state: ${reason}`);
  }
}

/** The range starts at or beyond the end of the blob (HTTP 416; `size` for `Content-Range`). */
export class RangeNotSatisfiableError extends Error {
  readonly size: number;

  constructor(range: ByteRange, size: number) {
    super(`range ${range.start}-${range.end} is not satisfiable for a blob of ${size} bytes`);
    this.size = size;
  }
}

/** A driver as created by this module: the {@link BlobStore} plus housekeeping. */
export interface BlobStoreDriver extends BlobStore {
  /**
   * Removes leftovers of interrupted writes and abandoned uploads not touched for
   * `olderThanMs`, except the uploads of `keep` (live sessions), whatever their age; returns
   * how many it removed. Safe to run on every replica at any time: a write in progress touches
   * its temp data continually, so `olderThanMs` need only be longer than a stalled write lives.
   */
  sweep(olderThanMs: number, keep?: readonly UploadState[]): Promise<number>;
}
