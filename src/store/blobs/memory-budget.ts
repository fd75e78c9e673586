/** Bytes of upload buffers a blob store holds at once unless told otherwise. */
export const defaultUploadMemoryBytes = 128 * 1024 * 1024;

/** Bytes taken from a {@link MemoryBudget}; give them back once, with `release`. */
export interface MemoryLease {
  readonly bytes: number;
  /** Returns the bytes to the budget; later calls do nothing. */
  release(): void;
}

interface Waiter {
  bytes: number;
  grant(lease: MemoryLease): void;
}

/**
 * A process-wide allowance of buffer memory for uploads. Each write takes what it needs to make
 * progress before it reads a byte of its body and gives it back when it ends, so concurrent
 * uploads share a fixed amount of memory instead of each holding its own: past the allowance a
 * write waits (first come, first served) and its client is held back by TCP, not by RSS.
 */
export class MemoryBudget {
  readonly limit: number;
  #used = 0;
  readonly #waiting: Waiter[] = [];

  constructor(limit: number) {
    if (!(Number.isSafeInteger(limit) && limit > 0)) {
      throw new RangeError("a memory budget must be a positive number of bytes");
    }
    this.limit = limit;
  }

  /** Bytes lent now. */
  get used(): number {
    return this.#used;
  }

  /**
   * Lends `bytes` (at most the whole budget) once they are free and no earlier caller is
   * still waiting.
   */
  acquire(bytes: number): Promise<MemoryLease> {
    const wanted = Math.min(bytes, this.limit);
    const now = this.tryAcquire(wanted);
    if (now) return Promise.resolve(now);
    return new Promise((grant) => this.#waiting.push({ bytes: wanted, grant }));
  }

  /** Lends `bytes` when they are free now and nobody waits; otherwise undefined. */
  tryAcquire(bytes: number): MemoryLease | undefined {
    if (this.#waiting.length > 0 || this.#used + bytes > this.limit) return undefined;
    return this.#lend(bytes);
  }

  #lend(bytes: number): MemoryLease {
    this.#used += bytes;
    let released = false;
    return {
      bytes,
      release: () => {
        if (released) return;
        released = true;
        this.#used -= bytes;
        this.#wake();
      },
    };
  }

  #wake() {
    while (this.#waiting.length > 0 && this.#used + this.#waiting[0].bytes <= this.limit) {
      const waiter = this.#waiting.shift() as Waiter;
      waiter.grant(this.#lend(waiter.bytes));
    }
  }
}

/** The budget of every blob store not given one of its own. */
export const sharedUploadMemory = new MemoryBudget(defaultUploadMemoryBytes);
