/** Berkeley DB hash databases begin with this magic at byte 12 (db_page.h, DB_HASHMAGIC). */
const HASH_MAGIC = 0x061561;
const PAGE_HEADER = 26;
const P_HASH_UNSORTED = 2;
const P_OVERFLOW = 7;
const P_HASH = 13;
const H_KEYDATA = 1;
const H_OFFPAGE = 3;
/** No rpm header is larger than the per-file limit of a scan; a longer chain is corrupt. */
const MAX_VALUE = 16 * 1024 * 1024;

/**
 * The values of a Berkeley DB hash database (rpm's `Packages` before rpm 4.16: key the
 * package number, value its header), read from its bytes without Berkeley DB: every hash page's
 * key/data pairs in page order, a value stored on overflow pages followed along its chain.
 * Every overflow page may be read once in all, so a hostile file costs at most one pass over
 * its pages; offsets and lengths are checked against the page.
 */
export function readBerkeleyHashValues(
  bytes: Buffer,
): { value: Buffer[]; error?: undefined } | { error: string } {
  if (bytes.length < 512) return { error: "shorter than a Berkeley DB page" };
  const little = bytes.readUInt32LE(12) === HASH_MAGIC;
  if (!little && bytes.readUInt32BE(12) !== HASH_MAGIC) {
    return { error: "not a Berkeley DB hash database" };
  }
  const u32 = (at: number) => (little ? bytes.readUInt32LE(at) : bytes.readUInt32BE(at));
  const u16 = (at: number) => (little ? bytes.readUInt16LE(at) : bytes.readUInt16BE(at));
  const pageSize = u32(20);
  if (pageSize < 512 || pageSize > 65536 || (pageSize & (pageSize - 1)) !== 0) {
    return { error: `page size ${pageSize}` };
  }
  const pages = Math.floor(bytes.length / pageSize);
  const used = new Set<number>();
  const values: Buffer[] = [];
  for (let page = 1; page < pages; page++) {
    const base = page * pageSize;
    const type = bytes[base + 25];
    if (type !== P_HASH && type !== P_HASH_UNSORTED) continue;
    const entries = u16(base + 20);
    if (PAGE_HEADER + entries * 2 > pageSize) return { error: `page ${page}: ${entries} entries` };
    // Items are stored from the page's end down; each runs to the start of the one before it.
    for (let item = 1; item < entries; item += 2) {
      const start = u16(base + PAGE_HEADER + item * 2);
      const end = u16(base + PAGE_HEADER + (item - 1) * 2);
      if (start < PAGE_HEADER + entries * 2 || end > pageSize || start >= end) {
        return { error: `page ${page}: item ${item} lies outside the page` };
      }
      const kind = bytes[base + start];
      if (kind === H_KEYDATA) {
        values.push(bytes.subarray(base + start + 1, base + end));
      } else if (kind === H_OFFPAGE) {
        if (start + 12 > end) return { error: `page ${page}: item ${item} cut short` };
        const chain = overflow(
          bytes,
          pageSize,
          u32,
          u16,
          u32(base + start + 4),
          u32(base + start + 8),
          used,
        );
        if (chain.error !== undefined) return { error: `page ${page}: ${chain.error}` };
        values.push(chain.value);
      } else {
        return { error: `page ${page}: item ${item} of unknown type ${kind}` };
      }
    }
  }
  return { value: values };
}

/** The `length` bytes stored on the overflow chain starting at `first`. */
function overflow(
  bytes: Buffer,
  pageSize: number,
  u32: (at: number) => number,
  u16: (at: number) => number,
  first: number,
  length: number,
  used: Set<number>,
): { value: Buffer; error?: undefined } | { error: string } {
  if (length > MAX_VALUE) return { error: `a value of ${length} bytes` };
  const parts: Buffer[] = [];
  let held = 0;
  for (let page = first; page !== 0 && held < length; ) {
    const base = page * pageSize;
    if (base + pageSize > bytes.length || used.has(page) || bytes[base + 25] !== P_OVERFLOW) {
      return { error: `overflow chain reaches page ${page}, which is not a free overflow page` };
    }
    used.add(page);
    const size = u16(base + 22);
    if (PAGE_HEADER + size > pageSize) return { error: `overflow page ${page} says ${size} bytes` };
    parts.push(bytes.subarray(base + PAGE_HEADER, base + PAGE_HEADER + size));
    held += size;
    page = u32(base + 16);
  }
  if (held !== length)
    return { error: `overflow chain of ${held} bytes for a ${length}-byte value` };
  return { value: Buffer.concat(parts, length) };
}
