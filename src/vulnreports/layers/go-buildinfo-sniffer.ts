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
  #head: Buffer = Buffer.alloc(0);
  /** The last bytes seen (at most 15), where a header may begin and end in the next chunk. */
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
    if (this.#head.length < ELF_MAGIC.length) {
      this.#head = Buffer.concat([
        this.#head,
        chunk.subarray(0, ELF_MAGIC.length - this.#head.length),
      ]);
      if (this.#head.length === ELF_MAGIC.length && !this.#head.equals(ELF_MAGIC)) {
        this.#done = true;
        return;
      }
    }
    const base = this.#offset;
    this.#offset += chunk.length;
    // A header straddling the previous chunk and this one: a joint of at most 30 bytes.
    if (this.#carry.length > 0) {
      const joint = Buffer.concat([this.#carry, chunk.subarray(0, ALIGN - 1)]);
      const at = headerIn(joint, base - this.#carry.length, this.#carry.length);
      if (at >= 0) {
        this.#window = [];
        this.#keep(joint.subarray(at));
        if (chunk.length > ALIGN - 1) this.#keep(chunk.subarray(ALIGN - 1));
        return;
      }
    }
    const at = headerIn(chunk, base, chunk.length);
    if (at >= 0) {
      this.#window = [];
      this.#keep(chunk.subarray(at));
      return;
    }
    const tail = ALIGN - 1;
    this.#carry =
      chunk.length >= tail
        ? Buffer.from(chunk.subarray(chunk.length - tail))
        : Buffer.concat([this.#carry, chunk]).subarray(-tail);
  }

  /** The window from the header on, or undefined when the file holds no Go build info. */
  result(): Buffer | undefined {
    return this.#window === undefined ? undefined : Buffer.concat(this.#window);
  }

  #keep(bytes: Buffer): void {
    if (this.#done) return;
    const take = bytes.subarray(0, this.#limit - this.#windowBytes);
    // Copied: the chunk may be a view into a much larger decompressed block.
    this.#window?.push(Buffer.from(take));
    this.#windowBytes += take.length;
    if (this.#windowBytes >= this.#limit) this.#done = true;
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
