import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import { borrowPartBuffer, returnPartBuffer } from "./blocks.ts";
import { relieveBuffers } from "./buffer-relief.ts";
import type { DigestHasher } from "./digest.ts";
import { trimWhenIdle } from "./idle-trim.ts";
import type { MemoryBudget, MemoryLease } from "./memory-budget.ts";

/** Where and how {@link writeObject} writes. */
export interface ObjectWriteOptions {
  client: S3Client;
  bucket: string;
  key: string;
  /** Bytes buffered per part; the object is a single PUT when it fits in one part. */
  partSize: number;
  /** Most parts uploading at once; each holds a part buffer lent by `memory`. */
  queueSize: number;
  /**
   * Lends the part buffers: one is waited for before the body is read, more are taken only
   * when free at once (up to `queueSize` + 1), and all go back when the write ends.
   */
  memory: MemoryBudget;
  /** Sees every byte, in order. */
  hasher?: DigestHasher;
  /** Runs once all bytes are read, before anything becomes visible; throwing stores nothing. */
  verify?: () => void;
}

/**
 * Streams `body` to one object. A body larger than one part goes through a multipart upload
 * that is completed only after `verify` passed, so no reader ever sees unverified bytes; on any
 * failure the multipart upload is aborted. Chunks are copied into whole part buffers (S3 wants
 * at least 5 MiB a part), never gathered and joined, so a part costs its buffer and no more.
 * Returns the byte count.
 */
export async function writeObject(
  body: AsyncIterable<unknown>,
  options: ObjectWriteOptions,
): Promise<number> {
  const { client, bucket, key, partSize, queueSize, memory, hasher, verify } = options;
  const leases: MemoryLease[] = [await memory.acquire(partSize)];
  /** Part buffers not being uploaded. */
  const free: Buffer[] = [borrowPartBuffer(partSize)];
  const owned = [...free];
  let part = free.pop() as Buffer;
  let filled = 0;
  let total = 0;
  let uploadId: string | undefined;
  let nextPart = 1;
  const parts: { PartNumber: number; ETag: string }[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;

  /** Uploads the current part and finds the next buffer: a free one, a new one, or the first to come back. */
  const sendPart = async () => {
    uploadId ??= (await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key })))
      .UploadId;
    const PartNumber = nextPart++;
    const data = part;
    const task = client
      .send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          PartNumber,
          Body: data.subarray(0, filled),
        }),
      )
      .then((result) => {
        parts.push({ PartNumber, ETag: result.ETag ?? "" });
      })
      .catch((error: unknown) => {
        failure ??= error;
      })
      .finally(() => {
        inFlight.delete(task);
        free.push(data);
      });
    inFlight.add(task);
    filled = 0;
    if (free.length === 0 && inFlight.size < queueSize + 1) {
      const more = memory.tryAcquire(partSize);
      if (more) {
        leases.push(more);
        const buffer = borrowPartBuffer(partSize);
        owned.push(buffer);
        free.push(buffer);
      }
    }
    while (free.length === 0 || inFlight.size >= queueSize) await Promise.race(inFlight);
    if (failure) throw failure;
    part = free.pop() as Buffer;
  };

  try {
    for await (const chunk of body) {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
      hasher?.update(buffer);
      relieveBuffers(buffer.byteLength);
      total += buffer.byteLength;
      for (let from = 0; from < buffer.byteLength; ) {
        const copied = buffer.copy(part, filled, from);
        from += copied;
        filled += copied;
        if (filled === partSize) await sendPart();
      }
    }
    if (uploadId === undefined) {
      verify?.();
      const data = part.subarray(0, filled);
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: data }));
      return total;
    }
    if (filled > 0) await sendPart();
    await Promise.all(inFlight);
    if (failure) throw failure;
    verify?.();
    parts.sort((a, b) => a.PartNumber - b.PartNumber);
    await client.send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: key,
        UploadId: uploadId,
        MultipartUpload: { Parts: parts },
      }),
    );
    return total;
  } catch (error) {
    await Promise.all(inFlight);
    if (uploadId !== undefined) {
      await client
        .send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))
        .catch(() => undefined);
    }
    throw error;
  } finally {
    for (const buffer of owned) returnPartBuffer(buffer);
    for (const lease of leases) lease.release();
    if (memory.used === 0) trimWhenIdle(memory);
  }
}
