import { inflateRawSync } from "node:zlib";
import { type BlobStore, RangeNotSatisfiableError } from "../../../store/blobs/index.ts";

/** One member of a zip archive, from its central directory. */
export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  size: number;
  /** Where the member's local header starts. */
  localOffset: number;
}

/** Largest central directory read into memory. */
const maxDirectoryBytes = 64 * 1024 * 1024;
/** The end record (22 bytes) plus the longest comment. */
const maxTailBytes = 22 + 0xffff;

/**
 * Up to `length` bytes of a blob from `start`, collected: only for bounded reads of an archive.
 * Fewer when the range runs past the end (an offset the archive lies about).
 */
async function readRange(blobs: BlobStore, digest: string, start: number, length: number) {
  if (length <= 0) return Buffer.alloc(0);
  let body: AsyncIterable<Buffer>;
  try {
    body = await blobs.get(digest, { start, end: start + length - 1 });
  } catch (error) {
    if (error instanceof RangeNotSatisfiableError) return Buffer.alloc(0);
    throw error;
  }
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk);
  return Buffer.concat(chunks);
}

/**
 * The entries of the zip archive stored as blob `digest` (`size` bytes), read from its central
 * directory with ranged reads (zip64 included), or why it is not a zip archive.
 */
export async function readZipDirectory(
  blobs: BlobStore,
  digest: string,
  size: number,
): Promise<{ value?: ZipEntry[]; error?: string }> {
  const tailStart = Math.max(0, size - maxTailBytes);
  const tail = await readRange(blobs, digest, tailStart, size - tailStart);
  let end = -1;
  for (let i = tail.length - 22; i >= 0; i--) {
    if (tail.readUInt32LE(i) === 0x06054b50) {
      end = i;
      break;
    }
  }
  if (end < 0) return { error: "not a zip archive (no end of central directory)" };
  let count = tail.readUInt16LE(end + 10);
  let dirSize = tail.readUInt32LE(end + 12);
  let dirOffset = tail.readUInt32LE(end + 16);
  if (count === 0xffff || dirSize === 0xffffffff || dirOffset === 0xffffffff) {
    const locator = end - 20;
    if (locator < 0 || tail.readUInt32LE(locator) !== 0x07064b50) {
      return { error: "zip64 archive without a zip64 end locator" };
    }
    const record = await readRange(blobs, digest, Number(tail.readBigUInt64LE(locator + 8)), 56);
    if (record.length < 56 || record.readUInt32LE(0) !== 0x06064b50) {
      return { error: "zip64 end of central directory is missing" };
    }
    count = Number(record.readBigUInt64LE(32));
    dirSize = Number(record.readBigUInt64LE(40));
    dirOffset = Number(record.readBigUInt64LE(48));
  }
  if (dirSize > maxDirectoryBytes) return { error: "zip central directory is too large" };
  if (dirOffset + dirSize > size) return { error: "zip central directory lies outside the file" };
  const dir = await readRange(blobs, digest, dirOffset, dirSize);
  const entries: ZipEntry[] = [];
  let at = 0;
  for (let i = 0; i < count; i++) {
    if (at + 46 > dir.length || dir.readUInt32LE(at) !== 0x02014b50) {
      return { error: "zip central directory is corrupt" };
    }
    const nameLength = dir.readUInt16LE(at + 28);
    const extraLength = dir.readUInt16LE(at + 30);
    const commentLength = dir.readUInt16LE(at + 32);
    const next = at + 46 + nameLength + extraLength + commentLength;
    if (next > dir.length) return { error: "zip central directory is corrupt" };
    const entry: ZipEntry = {
      name: dir.toString("utf8", at + 46, at + 46 + nameLength),
      method: dir.readUInt16LE(at + 10),
      compressedSize: dir.readUInt32LE(at + 20),
      size: dir.readUInt32LE(at + 24),
      localOffset: dir.readUInt32LE(at + 42),
    };
    applyZip64(entry, dir.subarray(at + 46 + nameLength, at + 46 + nameLength + extraLength));
    if (entry.localOffset + 30 > size)
      return { error: `zip member ${entry.name} lies outside the file` };
    entries.push(entry);
    at = next;
  }
  return { value: entries };
}

/** Replaces the 0xffffffff placeholders of a large member with its zip64 extra field values. */
function applyZip64(entry: ZipEntry, extra: Buffer): void {
  for (let at = 0; at + 4 <= extra.length; ) {
    const id = extra.readUInt16LE(at);
    const length = extra.readUInt16LE(at + 2);
    if (id === 0x0001) {
      let field = at + 4;
      const take = () => {
        if (field + 8 > at + 4 + length) return undefined;
        const value = Number(extra.readBigUInt64LE(field));
        field += 8;
        return value;
      };
      if (entry.size === 0xffffffff) entry.size = take() ?? entry.size;
      if (entry.compressedSize === 0xffffffff)
        entry.compressedSize = take() ?? entry.compressedSize;
      if (entry.localOffset === 0xffffffff) entry.localOffset = take() ?? entry.localOffset;
      return;
    }
    at += 4 + length;
  }
}

/** The uncompressed bytes of a (small) member, at most `maxBytes`, or why they cannot be read. */
export async function readZipMember(
  blobs: BlobStore,
  digest: string,
  entry: ZipEntry,
  maxBytes: number,
): Promise<{ value?: Buffer; error?: string }> {
  if (entry.size > maxBytes || entry.compressedSize > maxBytes) {
    return { error: `${entry.name} is larger than ${maxBytes} bytes` };
  }
  const local = await readRange(blobs, digest, entry.localOffset, 30);
  if (local.length < 30 || local.readUInt32LE(0) !== 0x04034b50) {
    return { error: `zip member ${entry.name} has no local header` };
  }
  const start = entry.localOffset + 30 + local.readUInt16LE(26) + local.readUInt16LE(28);
  const data = await readRange(blobs, digest, start, entry.compressedSize);
  if (data.length !== entry.compressedSize)
    return { error: `zip member ${entry.name} is truncated` };
  if (entry.method === 0) return { value: data };
  if (entry.method !== 8)
    return { error: `zip member ${entry.name} uses compression ${entry.method}` };
  try {
    return { value: inflateRawSync(data, { maxOutputLength: maxBytes }) };
  } catch {
    return { error: `zip member ${entry.name} does not inflate` };
  }
}
