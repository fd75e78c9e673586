const ELF_MAGIC = Buffer.from("\x7fELF", "latin1");

/**
 * Looks for a marker in an ELF binary streamed through it and keeps a bounded window from the
 * marker on: the binary itself is never held. The file must begin with the ELF magic. Between
 * chunks only `carried` bytes are kept, where a marker may begin and be recognised only with
 * the next chunk's first bytes. Subclasses say what a marker is (`find`).
 */
export abstract class ElfWindowSniffer {
  #offset = 0;
  #head: Buffer = Buffer.alloc(0);
  #carry: Buffer = Buffer.alloc(0);
  #window: Buffer[] | undefined;
  #windowBytes = 0;
  #done = false;
  readonly #limit: number;
  readonly #carried: number;

  constructor(limit: number, carried: number) {
    this.#limit = limit;
    this.#carried = carried;
  }

  /**
   * Where a marker starts in `bytes` (which start at file offset `base`), among the starts
   * before `before`; -1 when none does, or when the first candidate needs bytes past the end.
   */
  protected abstract find(bytes: Buffer, base: number, before: number): number;

  /** Whether a marker was found (the window may still be filling). */
  get found(): boolean {
    return this.#window !== undefined;
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
    const tail = this.#carried;
    // A marker straddling the previous chunk and this one.
    if (this.#carry.length > 0) {
      const joint = Buffer.concat([this.#carry, chunk.subarray(0, tail)]);
      const at = this.find(joint, base - this.#carry.length, this.#carry.length);
      if (at >= 0) {
        this.#window = [];
        this.#keep(joint.subarray(at));
        if (chunk.length > tail) this.#keep(chunk.subarray(tail));
        return;
      }
    }
    const at = this.find(chunk, base, chunk.length);
    if (at >= 0) {
      this.#window = [];
      this.#keep(chunk.subarray(at));
      return;
    }
    this.#carry =
      chunk.length >= tail
        ? Buffer.from(chunk.subarray(chunk.length - tail))
        : Buffer.concat([this.#carry, chunk]).subarray(-tail);
  }

  /** The window from the marker on, or undefined when none was found. */
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
