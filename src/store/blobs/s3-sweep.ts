import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type S3Client,
} from "@aws-sdk/client-s3";

/** Where the S3 driver keeps its objects: a bucket and a key prefix ("" or ending in `/`). */
export interface S3Place {
  client: S3Client;
  bucket: string;
  base: string;
}

/**
 * A multipart upload carries no time of last activity, only of its start; no registry request
 * lives a day, so one started longer ago than this is abandoned whatever `olderThanMs` says.
 */
const multipartFloorMs = 24 * 3_600_000;

/** The keys under `prefix`, with their last-modified time in milliseconds. */
export async function listKeys({ client, bucket }: S3Place, prefix: string) {
  const found: { key: string; modified: number }[] = [];
  let token: string | undefined;
  do {
    const page = await client.send(
      new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ContinuationToken: token }),
    );
    for (const item of page.Contents ?? []) {
      if (item.Key) found.push({ key: item.Key, modified: item.LastModified?.getTime() ?? 0 });
    }
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return found;
}

/** Deletes `keys`, 16 at a time. */
export async function deleteKeys({ client, bucket }: S3Place, keys: string[]) {
  for (let i = 0; i < keys.length; i += 16) {
    await Promise.all(
      keys
        .slice(i, i + 16)
        .map((Key) => client.send(new DeleteObjectCommand({ Bucket: bucket, Key }))),
    );
  }
}

/** Most keys one DeleteObjects request takes (the S3 API's limit). */
const deleteBatch = 1000;

/**
 * Deletes `keys` with DeleteObjects, up to 1000 a request and 4 requests at a time; rejects
 * naming the first key S3 failed to delete (a missing key is no failure).
 */
export async function deleteObjects({ client, bucket }: S3Place, keys: readonly string[]) {
  const batches: string[][] = [];
  for (let i = 0; i < keys.length; i += deleteBatch) batches.push(keys.slice(i, i + deleteBatch));
  for (let i = 0; i < batches.length; i += 4) {
    await Promise.all(
      batches.slice(i, i + 4).map(async (batch) => {
        const answer = await client.send(
          new DeleteObjectsCommand({
            Bucket: bucket,
            Delete: { Objects: batch.map((Key) => ({ Key })), Quiet: true },
          }),
        );
        const failed = answer.Errors?.[0];
        if (failed) throw new Error(`S3 could not delete ${failed.Key}: ${failed.Message}`);
      }),
    );
  }
}

/**
 * Removes what interrupted writes and abandoned uploads left: `tmp/` objects untouched for
 * `olderThanMs`, chunk objects of uploads whose newest chunk is that old unless the upload id
 * is in `keep` (a live session), and multipart uploads under the prefix started more than
 * `max(olderThanMs, 24 h)` ago (a process killed mid-write leaves them, invisible to listings
 * and billed). Returns how many objects and multipart uploads it removed.
 */
export async function sweepS3(
  place: S3Place,
  olderThanMs: number,
  keep: ReadonlySet<string>,
): Promise<number> {
  const { base } = place;
  const cutoff = Date.now() - olderThanMs;
  const keys = (await listKeys(place, `${base}tmp/`))
    .filter((item) => item.modified < cutoff)
    .map((item) => item.key);
  const uploads = new Map<string, { keys: string[]; newest: number }>();
  for (const item of await listKeys(place, `${base}uploads/`)) {
    const id = item.key.slice(`${base}uploads/`.length).split("/")[0];
    const entry = uploads.get(id) ?? { keys: [], newest: 0 };
    entry.keys.push(item.key);
    entry.newest = Math.max(entry.newest, item.modified);
    uploads.set(id, entry);
  }
  for (const [id, entry] of uploads) {
    if (entry.newest < cutoff && !keep.has(id)) keys.push(...entry.keys);
  }
  await deleteKeys(place, keys);
  const aborted = await abortStaleMultipart(
    place,
    Date.now() - Math.max(olderThanMs, multipartFloorMs),
  );
  return keys.length + aborted;
}

/** Aborts multipart uploads under the prefix started before `cutoff`; 0 where unsupported. */
async function abortStaleMultipart(place: S3Place, cutoff: number): Promise<number> {
  const { client, bucket, base } = place;
  const stale: { Key: string; UploadId: string }[] = [];
  let KeyMarker: string | undefined;
  let UploadIdMarker: string | undefined;
  try {
    do {
      const page = await client.send(
        new ListMultipartUploadsCommand({
          Bucket: bucket,
          Prefix: base,
          KeyMarker,
          UploadIdMarker,
        }),
      );
      for (const upload of page.Uploads ?? []) {
        const started = upload.Initiated?.getTime() ?? Number.POSITIVE_INFINITY;
        if (upload.Key && upload.UploadId && started < cutoff) {
          stale.push({ Key: upload.Key, UploadId: upload.UploadId });
        }
      }
      const more = page.IsTruncated === true;
      KeyMarker = more ? page.NextKeyMarker : undefined;
      UploadIdMarker = more ? page.NextUploadIdMarker : undefined;
    } while (KeyMarker !== undefined);
  } catch (error) {
    // Some S3-compatible stores (s3rver among them) cannot list multipart uploads, and older
    // deployments' credentials may lack s3:ListBucketMultipartUploads; a bucket lifecycle rule
    // is then the remedy (docs/blob-stores.md), and a warning every minute would not help.
    const name = (error as { name?: string }).name;
    if (name === "NotImplemented" || name === "AccessDenied") return 0;
    throw error;
  }
  for (const upload of stale) {
    await client
      .send(new AbortMultipartUploadCommand({ Bucket: bucket, ...upload }))
      .catch((error: unknown) => {
        // Another replica's sweep got there first.
        if ((error as { name?: string }).name !== "NoSuchUpload") throw error;
      });
  }
  return stale.length;
}
