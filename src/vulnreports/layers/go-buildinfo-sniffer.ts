/** Go's build info header starts with this, on a 16-byte boundary (debug/buildinfo). */
export const GO_BUILDINFO_MAGIC = Buffer.from("\xff Go buildinf:", "latin1");
const ELF_MAGIC = Buffer.from("\x7fELF", "latin1");
const ALIGN = 16;

/** What is kept after the header: the Go version and module list, inline since Go 1.18. */
export const GO_BUILDINFO_WINDOW = 64 * 1024;

/**
 * Finds Go build info in a binary streamed through it, holding at most 15 carried bytes while
 * searching and a bounded window once found: the binary is never held. The file must begin with
 * the ELF magic; the header must lie on a 16-byte boundary and say a pointer size of 4 or 8,
 * which tells it from the same bytes appearing as data (Go's own build info reader holds the
 * string).
 */
export class GoBuildInfoSniffer {
  #offset = 0;
  #carry: Buffer = Buffer.alloc(0);
  #window: Buffer[] | undefined;
  #windowBytes = 0;
  #done = false;
  readonly #limit: number;

  constructor(limit: number = GO_BUILDINFO_WINDOW) {
    this.#limit = limit;
  }

  /** Whether more bytes can change the result: callers may stop feeding once false. */
  get wantsMore(): boolean {
    return !this.#done;
  }

  push(chunk: Buffer): void {
    if (this.#done || chunk.length === 0) return;
    if (this.#window !== undefined) {
      this.#keep(chunk);
      return;
    }
    const base = this.#offset - this.#carry.length;
    const data = this.#carry.length > 0 ? Buffer.concat([this.#carry, chunk]) : chunk;
    this.#offset += chunk.length;
    if (base === 0 && data.length >= ELF_MAGIC.length && !data.subarray(0, 4).equals(ELF_MAGIC)) {
      this.#done = true;
      return;
    }
    for (let at = data.indexOf(GO_BUILDINFO_MAGIC); at >= 0 && at + ALIGN <= data.length; ) {
      const ptrSize = data[at + GO_BUILDINFO_MAGIC.length];
      if ((base + at) % ALIGN === 0 && (ptrSize === 4 || ptrSize === 8)) {
        this.#window = [];
        this.#keep(data.subarray(at));
        return;
      }
      at = data.indexOf(GO_BUILDINFO_MAGIC, at + 1);
    }
    // A header may begin in the last 15 bytes and end in the next chunk.
    this.#carry = Buffer.from(data.subarray(Math.max(0, data.length - (ALIGN - 1))));
    if (base === 0 && data.length < ELF_MAGIC.length) this.#carry = Buffer.from(data);
  }

  /** The window from the header on, or undefined when the file holds no Go build info. */
  result(): Buffer | undefined {
    return this.#window === undefined ? undefined : Buffer.concat(this.#window);
  }

  #keep(bytes: Buffer): void {
    const take = bytes.subarray(0, this.#limit - this.#windowBytes);
    // Copied: the chunk may be a view into a much larger decompressed block.
    this.#window?.push(Buffer.from(take));
    this.#windowBytes += take.length;
    if (this.#windowBytes >= this.#limit) this.#done = true;
  }
}
