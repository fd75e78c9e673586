import { ElfWindowSniffer } from "./elf-window-sniffer.ts";

/** Go's build info header starts with this, on a 16-byte boundary (debug/buildinfo). */
export const GO_BUILDINFO_MAGIC = Buffer.from("\xff Go buildinf:", "latin1");
const ALIGN = 16;

/** What is kept after the header: the Go version and module list, inline since Go 1.18. */
export const GO_BUILDINFO_WINDOW = 64 * 1024;

/**
 * Finds Go build info in a binary streamed through it, holding at most 15 carried bytes while
 * searching and a bounded window once found. The header must lie on a 16-byte boundary and say
 * a pointer size of 4 or 8, which tells it from the same bytes appearing as data (Go's own
 * build info reader holds the string).
 */
export class GoBuildInfoSniffer extends ElfWindowSniffer {
  constructor(limit: number = GO_BUILDINFO_WINDOW) {
    super(limit, ALIGN - 1);
  }

  protected find(bytes: Buffer, base: number, before: number): number {
    return headerIn(bytes, base, before);
  }
}

/**
 * Where in `data` (which starts at file offset `base`) a header starts before `before`: the
 * magic on a 16-byte boundary with a pointer size of 4 or 8, all 16 bytes inside `data`.
 */
function headerIn(data: Buffer, base: number, before: number): number {
  for (let at = data.indexOf(GO_BUILDINFO_MAGIC); at >= 0 && at < before; ) {
    if (at + ALIGN > data.length) return -1;
    const ptrSize = data[at + GO_BUILDINFO_MAGIC.length];
    if ((base + at) % ALIGN === 0 && (ptrSize === 4 || ptrSize === 8)) return at;
    at = data.indexOf(GO_BUILDINFO_MAGIC, at + 1);
  }
  return -1;
}
