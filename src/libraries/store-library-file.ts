import { createHash, type Hash } from "node:crypto";
import { PassThrough, type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { BlobStore } from "../store/blobs/index.ts";
import { LibraryError } from "./library-error.ts";

/** The hex digests a library file is served with. */
export interface FileHashes {
  sha256: string;
  sha1: string;
  md5: string;
  sha512: string;
}

/** A file's bytes once in the blob store. */
export interface StoredLibraryFile extends FileHashes {
  /** `sha256:<hex>`: the blob. */
  digest: string;
  size: number;
}

/** What storing a file checks. */
export interface StoreFileOptions {
  /** Hex digests the client declared; any mismatch stores nothing (400). */
  expected?: Partial<FileHashes>;
  /** Largest accepted file, bytes (413 past it). */
  maxBytes?: number;
}

const algorithms = ["sha256", "sha1", "md5", "sha512"] as const;

/**
 * Streams `body` into the blob store, hashing it four ways on the way. The check against the
 * declared digests happens before the stream ends, so a mismatch fails the blob write itself:
 * nothing becomes visible, and no metadata row is ever written for it.
 */
export async function storeLibraryFile(
  blobs: BlobStore,
  body: Readable,
  options: StoreFileOptions = {},
): Promise<StoredLibraryFile> {
  const hashes = Object.fromEntries(algorithms.map((a) => [a, createHash(a)])) as Record<
    (typeof algorithms)[number],
    Hash
  >;
  let size = 0;
  const result: Partial<StoredLibraryFile> = {};
  const maxBytes = options.maxBytes ?? Number.POSITIVE_INFINITY;
  const hashing = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      size += chunk.length;
      if (size > maxBytes) {
        done(new LibraryError(413, `file is larger than ${maxBytes} bytes`));
        return;
      }
      for (const a of algorithms) hashes[a].update(chunk);
      done(null, chunk);
    },
    flush(done) {
      for (const a of algorithms) result[a] = hashes[a].digest("hex");
      for (const a of algorithms) {
        const declared = options.expected?.[a]?.toLowerCase();
        if (declared && declared !== result[a]) {
          done(
            new LibraryError(
              400,
              `${a} of the upload is ${result[a]}, not the declared ${declared}`,
            ),
          );
          return;
        }
      }
      done();
    },
  });
  const out = new PassThrough();
  const [put, piped] = await Promise.allSettled([
    blobs.put(out, { algorithm: "sha256" }),
    pipeline(body, hashing, out),
  ]);
  // The pipeline's own error says why (mismatch, size, client gone) better than the store's.
  if (piped.status === "rejected") throw piped.reason;
  if (put.status === "rejected") throw put.reason;
  const stored = put.value;
  return {
    digest: stored.digest,
    size,
    sha256: result.sha256 ?? "",
    sha1: result.sha1 ?? "",
    md5: result.md5 ?? "",
    sha512: result.sha512 ?? "",
  };
}
