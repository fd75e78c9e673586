/** The tags of an installed package's header that an inventory needs (rpmtag.h). */
export const RPM_TAGS = {
  name: 1000,
  version: 1001,
  release: 1002,
  epoch: 1003,
  license: 1014,
  arch: 1022,
  sourceRpm: 1044,
} as const;

/** The fields read from one header; strings absent from the header are undefined. */
export interface RpmHeader {
  name?: string;
  version?: string;
  release?: string;
  epoch?: number;
  license?: string;
  arch?: string;
  sourceRpm?: string;
}

const TYPE_INT32 = 4;
const TYPE_STRING = 6;
const TYPE_STRING_ARRAY = 8;
const TYPE_I18NSTRING = 9;

/** rpm's own bounds on a header (header.c: hdrchkTags, hdrchkData). */
const MAX_ENTRIES = 0xffff;
const MAX_DATA = 256 * 1024 * 1024;
/** No tag read here is a long string; a longer one is a corrupt or hostile header. */
const MAX_STRING = 64 * 1024;

const WANTED = new Map<number, keyof RpmHeader>(
  Object.entries(RPM_TAGS).map(([field, tag]) => [tag, field as keyof RpmHeader]),
);

/**
 * Reads an rpm header blob as the rpmdb stores it: a big-endian entry count and data length,
 * that many 16-byte index entries (tag, type, offset, count), then the data store. Only the
 * tags in `RPM_TAGS` are decoded; every offset and length is checked against the blob, so a
 * hostile blob costs at most one pass over its index.
 */
export function parseRpmHeader(
  blob: Buffer,
): { value: RpmHeader; error?: undefined } | { error: string } {
  if (blob.length < 8) return { error: "header shorter than its 8-byte preamble" };
  const entries = blob.readUInt32BE(0);
  const dataLength = blob.readUInt32BE(4);
  if (entries === 0 || entries > MAX_ENTRIES) return { error: `header has ${entries} entries` };
  if (dataLength > MAX_DATA) return { error: `header data of ${dataLength} bytes` };
  const dataStart = 8 + entries * 16;
  if (dataStart + dataLength > blob.length) {
    return { error: `header of ${blob.length} bytes declares ${dataStart + dataLength}` };
  }
  const data = blob.subarray(dataStart, dataStart + dataLength);
  const header: RpmHeader = {};
  for (let i = 0; i < entries; i++) {
    const at = 8 + i * 16;
    const field = WANTED.get(blob.readUInt32BE(at));
    if (field === undefined || header[field] !== undefined) continue;
    const type = blob.readUInt32BE(at + 4);
    const offset = blob.readUInt32BE(at + 8);
    const count = blob.readUInt32BE(at + 12);
    if (offset >= data.length || count === 0) {
      return { error: `tag ${RPM_TAGS[field]} lies outside the header data` };
    }
    if (field === "epoch") {
      if (type !== TYPE_INT32 || offset + 4 > data.length) {
        return { error: "epoch is not a 32-bit integer inside the header data" };
      }
      header.epoch = data.readUInt32BE(offset);
      continue;
    }
    if (type !== TYPE_STRING && type !== TYPE_STRING_ARRAY && type !== TYPE_I18NSTRING) {
      return { error: `tag ${RPM_TAGS[field]} has type ${type}, not a string` };
    }
    const text = cString(data, offset);
    if (text === undefined) return { error: `tag ${RPM_TAGS[field]} is not a terminated string` };
    header[field] = text;
  }
  return { value: header };
}

/** The NUL-terminated string at `offset` (the first one of an array), bounded. */
function cString(data: Buffer, offset: number): string | undefined {
  // Searched within the bound: a header repeating a tag must not cost a scan of its data each.
  const window = data.subarray(offset, offset + MAX_STRING + 1);
  const end = window.indexOf(0);
  return end < 0 ? undefined : window.toString("utf8", 0, end);
}
