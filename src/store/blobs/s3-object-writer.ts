import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CreateMultipartUploadCommand,
  PutObjectCommand,
  type S3Client,
  UploadPartCommand,
} from "@aws-sdk/client-s3";
import type { DigestHasher } from "./digest.ts";

/** Where and how {@link writeObject} writes. */
export interface ObjectWriteOptions {
  client: S3Client;
  bucket: string;
  key: string;
  /** Bytes buffered per part; the object is a single PUT when it fits in one part. */
  partSize: number;
  /** Parts uploading at once; memory stays under `partSize × (queueSize + 1)`. */
  queueSize: number;
  /** Sees every byte, in order. */
  hasher?: DigestHasher;
  /** Runs once all bytes are read, before anything becomes visible; throwing stores nothing. */
  verify?: () => void;
}

/**
 * Streams `body` to one object. A body larger than one part goes through a multipart upload
 * that is completed only after `verify` passed, so no reader ever sees unverified bytes; on any
 * failure the multipart upload is aborted. Returns the byte count.
 */
export async function writeObject(
  body: AsyncIterable<unknown>,
  options: ObjectWriteOptions,
): Promise<number> {
  const { client, bucket, key, partSize, queueSize, hasher, verify } = options;
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let total = 0;
  let uploadId: string | undefined;
  let nextPart = 1;
  const parts: { PartNumber: number; ETag: string }[] = [];
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;

  const sendPart = async (data: Buffer) => {
    uploadId ??= (await client.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key })))
      .UploadId;
    const PartNumber = nextPart++;
    const task = client
      .send(
        new UploadPartCommand({
          Bucket: bucket,
          Key: key,
          UploadId: uploadId,
          PartNumber,
          Body: data,
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
      });
    inFlight.add(task);
    while (inFlight.size >= queueSize) await Promise.race(inFlight);
    if (failure) throw failure;
  };

  try {
    for await (const chunk of body) {
      const buffer = typeof chunk === "string" ? Buffer.from(chunk) : (chunk as Buffer);
      hasher?.update(buffer);
      pending.push(buffer);
      pendingBytes += buffer.byteLength;
      total += buffer.byteLength;
      if (pendingBytes >= partSize) {
        const data = Buffer.concat(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        await sendPart(data);
      }
    }
    if (uploadId === undefined) {
      verify?.();
      const data = Buffer.concat(pending, pendingBytes);
      await client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: data }));
      return total;
    }
    if (pendingBytes > 0) await sendPart(Buffer.concat(pending, pendingBytes));
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
  }
}
