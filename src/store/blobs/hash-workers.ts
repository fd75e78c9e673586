import { availableParallelism } from "node:os";
import { Worker } from "node:worker_threads";
import type { DigestAlgorithm } from "./blob-store.ts";

/**
 * A digest computed on a worker thread: the event loop moves blocks of bytes across (without a
 * copy) and stays free for other requests while a large blob is hashed.
 */
export interface BlockHasher {
  readonly algorithm: DigestAlgorithm;
  /** Bytes handed to {@link BlockHasher.update} so far. */
  readonly size: number;
  /**
   * Moves `block` (from `borrowBlocks`) to the worker, which hashes its first `length` bytes.
   * Resolves with the block, back and reusable; until then it is detached here.
   */
  update(block: Buffer, length: number): Promise<Buffer>;
  /** `<algorithm>:<hex>` of everything so far; the hasher is spent afterwards. */
  digest(): Promise<string>;
  /** Forgets the state without a digest. */
  discard(): void;
}

type Request =
  | {
      kind: "update";
      ticket: number;
      id: number;
      algorithm: DigestAlgorithm;
      block: ArrayBuffer;
      length: number;
    }
  | { kind: "digest"; ticket: number; id: number; algorithm: DigestAlgorithm }
  | { kind: "drop"; id: number };

interface Reply {
  ticket: number;
  block?: ArrayBuffer;
  hex?: string;
  error?: string;
}

/**
 * The worker's whole program, run from its source text, so the worker starts without loading
 * this module or the TypeScript stripper. One hash per id; every ticket is answered.
 */
function hashWorkerMain() {
  const { parentPort } = process.getBuiltinModule("node:worker_threads");
  const { createHash } = process.getBuiltinModule("node:crypto");
  const port = parentPort as NonNullable<typeof parentPort>;
  const hashes = new Map<number, ReturnType<typeof createHash>>();
  port.on("message", (message: Request) => {
    if (message.kind === "drop") {
      hashes.delete(message.id);
      return;
    }
    const { ticket, id, algorithm } = message;
    try {
      let hash = hashes.get(id);
      if (!hash) {
        hash = createHash(algorithm);
        hashes.set(id, hash);
      }
      if (message.kind === "digest") {
        hashes.delete(id);
        port.postMessage({ ticket, hex: hash.digest("hex") } satisfies Reply);
        return;
      }
      const { block, length } = message;
      hash.update(new Uint8Array(block, 0, length));
      port.postMessage({ ticket, block } satisfies Reply, [block]);
    } catch (error) {
      port.postMessage({ ticket, error: String(error) } satisfies Reply);
    }
  });
}

interface Waiter {
  resolve(reply: Reply): void;
  reject(error: Error): void;
}

class HashWorker {
  readonly #worker: Worker;
  readonly #waiting = new Map<number, Waiter>();
  #tickets = 0;
  /** Hashers bound to this worker and not yet finished. */
  live = 0;
  failed = false;

  constructor() {
    this.#worker = new Worker(`(${hashWorkerMain})()`, { eval: true });
    this.#worker.on("message", (reply: Reply) => {
      const waiter = this.#waiting.get(reply.ticket);
      this.#waiting.delete(reply.ticket);
      if (this.#waiting.size === 0) this.#worker.unref();
      if (reply.error) waiter?.reject(new Error(`hash worker: ${reply.error}`));
      else waiter?.resolve(reply);
    });
    const fail = (error: Error) => {
      this.failed = true;
      for (const waiter of this.#waiting.values()) waiter.reject(error);
      this.#waiting.clear();
    };
    this.#worker.on("error", fail);
    this.#worker.on("exit", (code) => fail(new Error(`hash worker exited with code ${code}`)));
    // After the listeners: adding one refs the worker again, and a worker only ever told to
    // discard (a refused upload) then kept a CLI from exiting.
    this.#worker.unref();
  }

  post(request: Request, transfer: ArrayBuffer[] = []) {
    this.#worker.postMessage(request, transfer);
  }

  /** Sends a request with a new ticket; resolves with the worker's answer to it. */
  ask(request: (ticket: number) => Request, transfer: ArrayBuffer[] = []): Promise<Reply> {
    if (this.failed) return Promise.reject(new Error("hash worker has stopped"));
    const ticket = ++this.#tickets;
    // A pending answer keeps the process alive; an idle worker never does.
    if (this.#waiting.size === 0) this.#worker.ref();
    return new Promise((resolve, reject) => {
      this.#waiting.set(ticket, { resolve, reject });
      this.post(request(ticket), transfer);
    });
  }
}

/** One worker fewer than the cores (at least one, at most four): the event loop has the last. */
const poolSize = Math.max(1, Math.min(4, availableParallelism() - 1));
const pool: HashWorker[] = [];
let nextId = 0;

function leastBusyWorker(): HashWorker {
  for (let i = pool.length - 1; i >= 0; i--) if (pool[i].failed) pool.splice(i, 1);
  const idle = pool.find((worker) => worker.live === 0);
  if (idle) return idle;
  if (pool.length < poolSize) return pool[pool.push(new HashWorker()) - 1];
  return pool.reduce((a, b) => (b.live < a.live ? b : a));
}

/** A {@link BlockHasher} on the least busy hash worker. */
export function createBlockHasher(algorithm: DigestAlgorithm): BlockHasher {
  const worker = leastBusyWorker();
  const id = ++nextId;
  let size = 0;
  let spent = false;
  worker.live++;
  const finish = () => {
    if (spent) return false;
    spent = true;
    worker.live--;
    return true;
  };
  return {
    algorithm,
    get size() {
      return size;
    },
    async update(block, length) {
      size += length;
      const buffer = block.buffer as ArrayBuffer;
      const reply = await worker.ask(
        (ticket) => ({ kind: "update", ticket, id, algorithm, block: buffer, length }),
        [buffer],
      );
      return Buffer.from(reply.block as ArrayBuffer);
    },
    async digest() {
      if (!finish()) throw new Error("digest of a spent hasher");
      const reply = await worker.ask((ticket) => ({ kind: "digest", ticket, id, algorithm }));
      return `${algorithm}:${reply.hex}`;
    },
    discard() {
      if (finish()) worker.post({ kind: "drop", id });
    },
  };
}
