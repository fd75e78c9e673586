import type { BlobStore } from "../../store/blobs/index.ts";

/** A blob's bytes, or why they were not read. */
export type BlobRead = { value: Buffer; error?: undefined } | { value?: undefined; error: string };

/**
 * Reads a whole blob of at most `limit` bytes. The stored size is checked first and the stream
 * is counted too, so a blob larger than it claims is still cut off at the limit. A blob that
 * is missing is an error value; store failures (network, disk) are thrown, as they may pass.
 */
export async function readBlobCapped(
  blobs: BlobStore,
  digest: string,
  limit: number,
  what: string,
): Promise<BlobRead> {
  const stat = await blobs.stat(digest);
  if (stat === undefined) return { error: `${what} ${digest} is not in the blob store` };
  if (stat.size > limit) {
    return { error: `${what} is ${stat.size} bytes, more than the ${limit} allowed` };
  }
  const body = await blobs.get(digest);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      body.destroy();
      return { error: `${what} is more than the ${limit} bytes allowed` };
    }
    chunks.push(chunk as Buffer);
  }
  return { value: Buffer.concat(chunks) };
}

/** A blob read as JSON; not JSON (or not an object) is an error value. */
export async function readJsonCapped(
  blobs: BlobStore,
  digest: string,
  limit: number,
  what: string,
): Promise<{ value: Record<string, unknown>; error?: undefined } | { error: string }> {
  const read = await readBlobCapped(blobs, digest, limit, what);
  if (read.error !== undefined) return { error: read.error };
  try {
    const value: unknown = JSON.parse(read.value.toString("utf8"));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      return { value: value as Record<string, unknown> };
    }
    return { error: `${what} is not a JSON object` };
  } catch {
    return { error: `${what} is not JSON` };
  }
}
