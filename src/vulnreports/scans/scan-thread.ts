import { Worker } from "node:worker_threads";
import { type BlobStoreOptions, collectReleasedBuffers } from "../../store/blobs/index.ts";
import type { MetadataStoreOptions } from "../../store/metadata/index.ts";
import type { ScanKey } from "./scan-results.ts";
import type { ScanBounds, ScanRunner, ScanSummary } from "./scan-runner.ts";

/** What the scan thread is started with (structured-cloned into it). */
export interface ScanThreadData {
  store: MetadataStoreOptions;
  blobs: BlobStoreOptions;
  registryUrl: string;
  toolVersion: string;
  bounds: ScanBounds;
}

export interface ScanThreadOptions extends ScanThreadData {
  /** The thread's JavaScript heap, MiB; a scan that needs more fails. Default 384. */
  maxMemoryMib?: number;
  /** The thread ends after this long without work, giving its memory back. Default 10 s. */
  idleMs?: number;
  /** Called once a thread has ended for want of work: the burst of scans is over. */
  onIdle?: () => void;
}

type Request =
  | { op: "scan"; key: ScanKey }
  | { op: "match"; image: { repoUid: string; digest: string } };
export type ThreadRequest = Request & { id: number };
/** Asks the thread to stop what it is doing, close its stores and end. */
export type ThreadControl = { op: "close" };
export type ThreadReply = { id: number; value?: ScanSummary; error?: string };

/** The scan needed more memory than the thread may use; the thread was ended. */
export class ScanOutOfMemory extends Error {}

interface Waiting {
  resolve: (value: ScanSummary | undefined) => void;
  reject: (error: Error) => void;
}

/** One started thread, the calls it owes answers to, and its end. */
interface Thread {
  worker: Worker;
  waiting: Map<number, Waiting>;
  exited: Promise<void>;
}

/**
 * How long a thread asked to end may take to finish what it is doing and close its stores
 * before it is terminated. Terminating is the last resort: it leaves store connections
 * unclosed, and a thread ended inside a native call has aborted the whole process (with the
 * SQLite addon Lading used before `node:sqlite`).
 */
const closeGraceMs = 30_000;

/**
 * Runs scans and matches on a worker thread of their own, so that reading a 50 MB SBOM or a
 * 170,000-package layer never holds the event loop that answers requests (issue 21). The
 * thread's heap is capped: a scan past it ends the thread and fails with a stated reason
 * instead of growing the server. An idle thread ends, so its memory goes back to the system,
 * and a stopped scan retires its thread (its parse may not yield for seconds); the next call
 * starts a new one. Threads are asked to end, never terminated unless they do not.
 */
export function createScanThread(options: ScanThreadOptions): ScanRunner {
  const maxMemoryMib = options.maxMemoryMib ?? 384;
  const idleMs = options.idleMs ?? 10_000;
  const data: ScanThreadData = {
    store: options.store,
    blobs: options.blobs,
    registryUrl: options.registryUrl,
    toolVersion: options.toolVersion,
    bounds: options.bounds,
  };
  let current: Thread | undefined;
  let nextId = 0;
  let idle: NodeJS.Timeout | undefined;
  /** Every thread started and not yet exited, so that closing waits for those still ending. */
  const live = new Set<Thread>();

  const end = async (thread: Thread | undefined) => {
    if (!thread) return;
    if (current === thread) current = undefined;
    const close: ThreadControl = { op: "close" };
    thread.worker.postMessage(close);
    const last = setTimeout(() => void thread.worker.terminate(), closeGraceMs);
    await thread.exited;
    clearTimeout(last);
    // The bodies of the big pushes that caused the scans are garbage by now; an idle server
    // would keep them resident until its heap next grows.
    collectReleasedBuffers();
  };
  const failAll = (thread: Thread, error: Error) => {
    for (const w of thread.waiting.values()) w.reject(error);
    thread.waiting.clear();
  };
  const start = (): Thread => {
    const worker = new Worker(new URL("./scan-thread-main.ts", import.meta.url), {
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: maxMemoryMib, maxYoungGenerationSizeMb: 16 },
    });
    const thread: Thread = {
      worker,
      waiting: new Map(),
      exited: new Promise((resolve) => worker.once("exit", () => resolve())),
    };
    live.add(thread);
    void thread.exited.then(() => live.delete(thread));
    worker.on("message", ({ id, value, error }: ThreadReply) => {
      const entry = thread.waiting.get(id);
      thread.waiting.delete(id);
      if (error === undefined) entry?.resolve(value);
      else entry?.reject(new Error(error));
      if (thread.waiting.size === 0) settleIdle(thread);
    });
    worker.on("error", (error: Error & { code?: string }) => {
      if (current === thread) current = undefined;
      failAll(
        thread,
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new ScanOutOfMemory(
              `the scan needed more than the ${maxMemoryMib} MiB of memory a scan may use (--scan-max-memory)`,
            )
          : error,
      );
    });
    worker.on("exit", (code) => {
      if (current === thread) current = undefined;
      failAll(thread, new Error(`the scan thread stopped (exit code ${code})`));
    });
    return thread;
  };
  /** With nothing in flight the thread no longer keeps the process up, and ends when idle. */
  const settleIdle = (thread: Thread) => {
    thread.worker.unref();
    if (thread !== current) return;
    clearTimeout(idle);
    idle = setTimeout(() => {
      if (thread.waiting.size === 0) void end(thread).then(options.onIdle);
    }, idleMs);
    idle.unref();
  };

  const call = (request: Request, signal?: AbortSignal) => {
    clearTimeout(idle);
    current ??= start();
    const thread = current;
    const id = nextId++;
    const result = new Promise<ScanSummary | undefined>((resolve, reject) => {
      thread.waiting.set(id, { resolve, reject });
      signal?.addEventListener(
        "abort",
        () => {
          thread.waiting.delete(id);
          reject(signal.reason);
          // The thread stops the scan at its next turn of the event loop; a parse under way
          // runs to its end first, so later calls go to a new thread meanwhile.
          void end(thread);
        },
        { once: true },
      );
    });
    thread.worker.ref();
    thread.worker.postMessage({ ...request, id });
    return result;
  };

  return {
    async scan(key, signal) {
      signal.throwIfAborted();
      return (await call({ op: "scan", key }, signal)) as ScanSummary;
    },
    async match(image) {
      await call({ op: "match", image });
    },
    async close() {
      clearTimeout(idle);
      current = undefined;
      await Promise.all(
        [...live].map((thread) => {
          failAll(thread, new Error("the scan thread was closed"));
          return end(thread);
        }),
      );
    },
  };
}
