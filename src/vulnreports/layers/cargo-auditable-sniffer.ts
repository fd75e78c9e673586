import { constants, inflateSync } from "node:zlib";
import { ElfWindowSniffer } from "./elf-window-sniffer.ts";

/**
 * Marks a kept window as cargo-auditable data: the layer scan holds sniffed windows by path,
 * and this tells them from Go build info (which starts with its own magic).
 */
export const CARGO_AUDIT_TAG = Buffer.from("\0lading:cargo-auditable\0", "latin1");

/** Compressed bytes kept from the start of the audit data, as much as Go build info gets. */
export const CARGO_AUDIT_WINDOW = 64 * 1024;

/** Bytes of a candidate inflated to see whether it is audit data. */
const PROBE = 64;

/** The text cargo-auditable's JSON starts with (serde writes `format` first when present). */
const JSON_START = /^\{"(?:format|packages)":/;

/** zlib headers of a 32 KiB window without a preset dictionary, per level (RFC 1950). */
const ZLIB_HEADERS = [0x01, 0x5e, 0x9c, 0xda].map((flags) => Buffer.from([0x78, flags]));

/**
 * Finds the dependency list cargo-auditable embeds in a Rust binary (the `.dep-v0` section: a
 * zlib stream of JSON) as the binary streams past. The section table sits at the end of an ELF
 * file, after the section itself, so the data is recognised by what it is: a zlib header whose
 * first bytes inflate to `{"format":` or `{"packages":`. From there a bounded window is kept,
 * and at most 63 bytes are carried between chunks.
 */
export class CargoAuditableSniffer extends ElfWindowSniffer {
  constructor(limit: number = CARGO_AUDIT_WINDOW) {
    super(limit, PROBE - 1);
  }

  protected find(bytes: Buffer, _base: number, before: number): number {
    return findAuditData(bytes, before);
  }

  /** The tagged window from the zlib header on, or undefined when none was found. */
  override result(): Buffer | undefined {
    const window = super.result();
    return window === undefined ? undefined : Buffer.concat([CARGO_AUDIT_TAG, window]);
  }
}

/**
 * Where audit data starts in `data` before `before` (with PROBE bytes to look at), or -1.
 * Each zlib header is searched for natively, so a binary's many other 0x78 bytes cost nothing.
 */
function findAuditData(data: Buffer, before: number): number {
  const candidates: number[] = [];
  for (const header of ZLIB_HEADERS) {
    for (let at = data.indexOf(header); at >= 0 && at < before; at = data.indexOf(header, at + 1)) {
      candidates.push(at);
    }
  }
  candidates.sort((x, y) => x - y);
  for (const at of candidates) {
    if (at + PROBE > data.length) return -1;
    if (isAuditDataAt(data, at)) return at;
  }
  return -1;
}

/**
 * Whether the zlib stream at `at` starts cargo-auditable's JSON. Type 3 is no deflate block;
 * a stored block (type 0) holds the text as it is after its 4 length bytes, so it is checked
 * without inflating; a compressed one is inflated only after a header of level 2 or more
 * (0x78 0x01 is the header of levels 0 and 1, and of most false candidates in a binary).
 */
function isAuditDataAt(data: Buffer, at: number): boolean {
  const blockType = (data[at + 2] >> 1) & 3;
  if (blockType === 3) return false;
  if (blockType === 0) return data[at + 7] === 0x7b && data[at + 8] === 0x22;
  return data[at + 1] !== 0x01 && inflatesToAuditJson(data.subarray(at, at + PROBE));
}

/** Whether a zlib stream's first bytes inflate to the start of cargo-auditable's JSON. */
function inflatesToAuditJson(bytes: Buffer): boolean {
  try {
    const text = inflateSync(bytes, {
      finishFlush: constants.Z_SYNC_FLUSH,
      maxOutputLength: 64 * 1024,
    });
    return JSON_START.test(text.toString("latin1"));
  } catch {
    return false;
  }
}

/** Whether kept bytes are a cargo-auditable window (as the sniffer keeps them). */
export function isCargoAuditableWindow(bytes: Buffer): boolean {
  return bytes.subarray(0, CARGO_AUDIT_TAG.length).equals(CARGO_AUDIT_TAG);
}
