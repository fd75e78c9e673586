import { randomBytes } from "node:crypto";
import type { Readable } from "node:stream";
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  S3Client,
  type S3ClientConfig,
} from "@aws-sdk/client-s3";
import {
  BlobNotFoundError,
  type BlobStoreDriver,
  DigestMismatchError,
  InvalidUploadStateError,
  RangeNotSatisfiableError,
  UploadNotFoundError,
  type UploadState,
} from "./blob-store.ts";
import { clampRange } from "./byte-range.ts";
import { createDigestHasher, pickAlgorithm, requireDigest } from "./digest.ts";
import { type MemoryBudget, sharedUploadMemory } from "./memory-budget.ts";
import { writeObject } from "./s3-object-writer.ts";
import { deleteObjects, listKeys, deleteKeys as removeKeys, sweepS3 } from "./s3-sweep.ts";

/** Options of {@link createS3BlobStore}. */
export interface S3BlobStoreOptions {
  bucket: string;
  /** Key prefix without leading or trailing slash; default "" (the bucket root). */
  prefix?: string;
  /** Custom endpoint for S3-compatible stores (MinIO, Ceph, s3rver); default AWS. */
  endpoint?: string;
  /** Default `AWS_REGION`, else "us-east-1". */
  region?: string;
  /** Path-style URLs (`endpoint/bucket/key`), which most S3-compatible stores need; default false. */
  forcePathStyle?: boolean;
  /** Explicit credentials; default the AWS SDK default chain (environment, profile, IMDS, …). */
  credentials?: S3ClientConfig["credentials"];
  /** Bytes per multipart part; default 8 MiB (S3's minimum is 5 MiB, except for the last part). */
  partSize?: number;
  /**
   * Most parts uploading in parallel per write; default 4. A write holds one part buffer, and
   * up to `queueSize` + 1 while `memory` has them to spare.
   */
  queueSize?: number;
  /** Lends every write its part buffers; default the process-wide {@link sharedUploadMemory}. */
  memory?: MemoryBudget;
  /** A ready client, used instead of building one from the options above. */
  client?: S3Client;
}

/** Upload state of the S3 driver: each append is one object under `<prefix>/uploads/<id>/`. */
interface S3UploadState extends UploadState {
  /** 32 lowercase hex characters. */
  id: string;
  /** Byte size of each chunk object, in order. */
  chunks: number[];
}

const uploadIdPattern = /^[a-f0-9]{32}$/;
const maxChunks = 100_000;
const maxCopyBytes = 5 * 2 ** 30;

/**
 * A content-addressed store in an S3 bucket: blobs at `<prefix>/blobs/<algorithm>/<hex>`.
 * Writes with a known digest go straight to the blob key, through a multipart upload completed
 * only after the digest was verified; writes without one go to `<prefix>/tmp/` first and are
 * copied once their digest is known. Chunked uploads keep one object per chunk under
 * `<prefix>/uploads/<id>/` and are concatenated, hashed and verified at commit.
 */
export function createS3BlobStore(options: S3BlobStoreOptions): BlobStoreDriver {
  const { bucket } = options;
  const base = options.prefix ? `${options.prefix.replace(/^\/+|\/+$/g, "")}/` : "";
  const partSize = options.partSize ?? 8 << 20;
  const queueSize = options.queueSize ?? 4;
  if (!(partSize >= 5 << 20) || !(queueSize >= 1)) {
    throw new RangeError("S3 blob store: partSize must be at least 5 MiB and queueSize at least 1");
  }
  const client =
    options.client ??
    new S3Client({
      endpoint: options.endpoint,
      region: options.region ?? process.env.AWS_REGION ?? "us-east-1",
      forcePathStyle: options.forcePathStyle ?? false,
      credentials: options.credentials,
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  const memory = options.memory ?? sharedUploadMemory;
  if (memory.limit < partSize) {
    throw new RangeError("S3 blob store: the upload memory must hold at least one part");
  }
  const write = { client, bucket, partSize, queueSize, memory };

  const blobKey = (digest: string) => {
    const { algorithm, hex } = requireDigest(digest);
    return `${base}blobs/${algorithm}/${hex}`;
  };
  const chunkKey = (id: string, index: number) =>
    `${base}uploads/${id}/${String(index).padStart(6, "0")}`;

  const uploadOf = (state: UploadState) => {
    const { size, id, chunks } = state as S3UploadState;
    if (!Number.isSafeInteger(size) || size < 0) {
      throw new InvalidUploadStateError("size must be a non-negative integer");
    }
    if (typeof id !== "string" || !uploadIdPattern.test(id)) {
      throw new InvalidUploadStateError("not an upload id of this store");
    }
    if (
      !Array.isArray(chunks) ||
      chunks.length > maxChunks ||
      !chunks.every((n) => Number.isSafeInteger(n) && n >= 0) ||
      chunks.reduce((sum, n) => sum + n, 0) !== size
    ) {
      throw new InvalidUploadStateError("chunk sizes do not add up to the size");
    }
    return { size, id, chunks: chunks as number[] };
  };

  const getObject = (key: string, range?: string) =>
    client.send(new GetObjectCommand({ Bucket: bucket, Key: key, Range: range }));

  const place = { client, bucket, base };
  const deleteKeys = (keys: string[]) => removeKeys(place, keys);

  const moveTemp = async (tempKey: string, digest: string, size: number) => {
    const Key = blobKey(digest);
    if (size <= maxCopyBytes) {
      await client.send(
        new CopyObjectCommand({
          Bucket: bucket,
          Key,
          CopySource: encodeURI(`${bucket}/${tempKey}`),
        }),
      );
      return;
    }
    const { algorithm } = requireDigest(digest);
    const hasher = createDigestHasher(algorithm);
    const source = (await getObject(tempKey)).Body as Readable;
    await writeObject(source, {
      ...write,
      key: Key,
      hasher,
      verify: () => check(digest, hasher.digest()),
    });
  };

  return {
    async put(body, putOptions) {
      const { algorithm, expected } = pickAlgorithm(putOptions);
      const hasher = createDigestHasher(algorithm);
      if (expected) {
        const size = await writeObject(body, {
          ...write,
          key: blobKey(expected.digest),
          hasher,
          verify: () => check(expected.digest, hasher.digest()),
        });
        return { digest: expected.digest, size };
      }
      const tempKey = `${base}tmp/${randomBytes(16).toString("hex")}`;
      try {
        const size = await writeObject(body, { ...write, key: tempKey, hasher });
        const digest = hasher.digest();
        await moveTemp(tempKey, digest, size);
        return { digest, size };
      } finally {
        await deleteKeys([tempKey]);
      }
    },

    async stat(digest) {
      try {
        const head = await client.send(
          new HeadObjectCommand({ Bucket: bucket, Key: blobKey(digest) }),
        );
        return { size: head.ContentLength ?? 0 };
      } catch (error) {
        if (isMissing(error)) return undefined;
        throw error;
      }
    },

    async get(digest, range) {
      const key = blobKey(digest);
      const window = range ? clampRange(range, Number.POSITIVE_INFINITY) : undefined;
      try {
        const result = await getObject(key, window && `bytes=${window.start}-${window.end}`);
        return result.Body as Readable;
      } catch (error) {
        if (isMissing(error)) throw new BlobNotFoundError(digest);
        if (window && statusOf(error) === 416) {
          const head = await client.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));
          throw new RangeNotSatisfiableError(window, head.ContentLength ?? 0);
        }
        throw error;
      }
    },

    async delete(digest) {
      await client.send(new DeleteObjectCommand({ Bucket: bucket, Key: blobKey(digest) }));
    },

    async deleteMany(digests) {
      await deleteObjects(place, digests.map(blobKey));
    },

    async createUpload() {
      return { size: 0, id: randomBytes(16).toString("hex"), chunks: [] } satisfies S3UploadState;
    },

    async appendUpload(state, body) {
      const { size, id, chunks } = uploadOf(state);
      const key = chunkKey(id, chunks.length);
      const written = await writeObject(body, { ...write, key });
      if (written === 0) {
        await deleteKeys([key]);
        return { ...state, size, id, chunks };
      }
      return { ...state, size: size + written, id, chunks: [...chunks, written] };
    },

    async commitUpload(state, expectedDigest) {
      const expected = requireDigest(expectedDigest);
      const { size, id, chunks } = uploadOf(state);
      const hasher = createDigestHasher(expected.algorithm);
      const readChunks = async function* () {
        for (const [index, length] of chunks.entries()) {
          let result: Awaited<ReturnType<typeof getObject>>;
          try {
            result = await getObject(chunkKey(id, index));
          } catch (error) {
            if (isMissing(error)) throw new UploadNotFoundError(`chunk ${index} of ${id} is gone`);
            throw error;
          }
          if (result.ContentLength !== length) {
            throw new InvalidUploadStateError(
              `chunk ${index} has ${result.ContentLength} bytes, not ${length}`,
            );
          }
          yield* result.Body as Readable;
        }
      };
      await writeObject(readChunks(), {
        ...write,
        key: blobKey(expected.digest),
        hasher,
        verify: () => check(expected.digest, hasher.digest()),
      });
      await deleteKeys(chunks.map((_, index) => chunkKey(id, index)));
      return { digest: expected.digest, size };
    },

    async abortUpload(state) {
      const { id } = uploadOf(state);
      await deleteKeys((await listKeys(place, `${base}uploads/${id}/`)).map((item) => item.key));
    },

    async sweep(olderThanMs, keep = []) {
      const live = new Set<string>();
      for (const state of keep) {
        try {
          live.add(uploadOf(state).id);
        } catch {
          // Not this driver's state: nothing of it to keep.
        }
      }
      return sweepS3(place, olderThanMs, live);
    },
  };
}

function check(expected: string, actual: string) {
  if (expected !== actual) throw new DigestMismatchError(expected, actual);
}

function statusOf(error: unknown): number | undefined {
  return (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
}

function isMissing(error: unknown) {
  const name = (error as { name?: string }).name;
  return name === "NoSuchKey" || name === "NotFound" || statusOf(error) === 404;
}
