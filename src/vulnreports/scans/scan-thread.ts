import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Worker } from "node:worker_threads";
import type { BlobStoreOptions } from "../../store/blobs/index.ts";
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
}

type Request =
  | { op: "scan"; key: ScanKey }
  | { op: "match"; image: { repoUid: string; digest: string } };
export type ThreadRequest = Request & { id: number };
export type ThreadReply = { id: number; value?: ScanSummary; error?: string };

/**
 * One full collection on this thread once the scan thread has ended: the bodies of the big
 * pushes that caused the scans are garbage by then, and an idle server would otherwise keep
 * them resident until its heap next grows.
 */
function collectGarbage(): void {
  try {
    setFlagsFromString("--expose-gc");
    (runInNewContext("gc") as () => void)();
  } catch {
    // Without it the memory comes back with the next collection.
  }
}

/** The scan needed more memory than the thread may use; the thread was ended. */
export class ScanOutOfMemory extends Error {}

interface Waiting {
  resolve: (value: ScanSummary | undefined) => void;
  reject: (error: Error) => void;
}

/**
 * Runs scans and matches on a worker thread of their own, so that reading a 50 MB SBOM or a
 * 170,000-package layer never holds the event loop that answers requests (issue 21). The
 * thread's heap is capped: a scan past it ends the thread and fails with a stated reason
 * instead of growing the server. A stopped scan ends the thread too (nothing else stops
 * synchronous parsing), and an idle thread ends, so its memory goes back to the system; the
 * next call starts a new one.
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
  let worker: Worker | undefined;
  let nextId = 0;
  let idle: NodeJS.Timeout | undefined;
  const waiting = new Map<number, Waiting>();

  const end = (stopping: Worker | undefined) => {
    if (!stopping) return Promise.resolve();
    if (worker === stopping) worker = undefined;
    return stopping.terminate().then(collectGarbage);
  };
  const failAll = (error: Error) => {
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };
  const start = () => {
    const started = new Worker(new URL("./scan-thread-main.ts", import.meta.url), {
      workerData: data,
      resourceLimits: { maxOldGenerationSizeMb: maxMemoryMib },
    });
    started.on("message", ({ id, value, error }: ThreadReply) => {
      const entry = waiting.get(id);
      waiting.delete(id);
      if (error === undefined) entry?.resolve(value);
      else entry?.reject(new Error(error));
      if (waiting.size === 0) settleIdle(started);
    });
    started.on("error", (error: Error & { code?: string }) => {
      if (worker === started) worker = undefined;
      failAll(
        error.code === "ERR_WORKER_OUT_OF_MEMORY"
          ? new ScanOutOfMemory(
              `the scan needed more than the ${maxMemoryMib} MiB of memory a scan may use (--scan-max-memory)`,
            )
          : error,
      );
    });
    started.on("exit", (code) => {
      if (worker === started) worker = undefined;
      failAll(new Error(`the scan thread stopped (exit code ${code})`));
    });
    return started;
  };
  /** With nothing in flight the thread no longer keeps the process up, and ends when idle. */
  const settleIdle = (thread: Worker) => {
    thread.unref();
    clearTimeout(idle);
    idle = setTimeout(() => {
      if (waiting.size === 0) void end(thread);
    }, idleMs);
    idle.unref();
  };

  const call = (request: Request, signal?: AbortSignal) => {
    clearTimeout(idle);
    worker ??= start();
    const thread = worker;
    const id = nextId++;
    const result = new Promise<ScanSummary | undefined>((resolve, reject) => {
      waiting.set(id, { resolve, reject });
      signal?.addEventListener(
        "abort",
        () => {
          waiting.delete(id);
          reject(signal.reason);
          // Nothing short of ending the thread stops a parse under way.
          void end(thread);
        },
        { once: true },
      );
    });
    thread.ref();
    thread.postMessage({ ...request, id });
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
      const stopping = worker;
      worker = undefined;
      failAll(new Error("the scan thread was closed"));
      await end(stopping);
    },
  };
}
