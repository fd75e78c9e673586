import { Worker } from "node:worker_threads";
import type { Kysely } from "kysely";
import {
  type MetadataSchema,
  type MetadataStoreOptions,
  runInTransaction,
} from "../store/metadata/index.ts";
import { type PullRecord, pullEventOf } from "./pull-event.ts";
import { recordEvents } from "./record-events.ts";

/** Writes batches of pull events, each batch in one transaction, in the order given. */
export interface PullWriter {
  write(source: string, pulls: PullRecord[]): Promise<void>;
  /** Waits for the writes sent and lets go of what the writer holds. */
  close(): Promise<void>;
}

/** Writes on the calling thread through `db`: PostgreSQL's writes wait on the network, not it. */
export function inProcessPullWriter(db: Kysely<MetadataSchema>): PullWriter {
  return {
    write: (source, pulls) =>
      runInTransaction(db, (tx) =>
        recordEvents(
          tx,
          pulls.map((pull) => pullEventOf(pull, source)),
        ),
      ),
    close: async () => {},
  };
}

interface Reply {
  id: number;
  error?: string;
}

/** The store a worker thread opens: the server's SQLite file, or its PostgreSQL database. */
export type PullWriterStore = Pick<MetadataStoreOptions, "dataDir" | "databaseUrl">;

/**
 * Writes through a worker thread with its own connection to `store` (one on PostgreSQL).
 * SQLite runs on the thread that calls it: a batch of 500 pull events is about 5 ms of the
 * event loop, and most of the CPU pull events cost. On PostgreSQL, building the events and
 * their statements cost a busy server's event loop about a tenth of each manifest GET. On the
 * worker, manifest GETs go on while it writes (docs/decisions.md, "Pull events are written by
 * a worker thread"). The worker starts with the first batch.
 */
export function workerPullWriter(store: PullWriterStore): PullWriter {
  let worker: Worker | undefined;
  let nextId = 0;
  const waiting = new Map<number, { resolve: () => void; reject: (error: Error) => void }>();

  const failAll = (error: Error) => {
    for (const { reject } of waiting.values()) reject(error);
    waiting.clear();
  };
  const start = () => {
    const started = new Worker(new URL("./pull-writer-worker.ts", import.meta.url), {
      workerData: { dataDir: store.dataDir, databaseUrl: store.databaseUrl },
    });
    started.on("message", ({ id, error }: Reply) => {
      const entry = waiting.get(id);
      waiting.delete(id);
      if (waiting.size === 0) started.unref();
      if (error === undefined) entry?.resolve();
      else entry?.reject(new Error(error));
    });
    started.on("error", (error) => failAll(error));
    started.on("exit", (code) => {
      if (worker === started) worker = undefined;
      failAll(new Error(`the pull event writer stopped (exit code ${code})`));
    });
    // Only writes in flight keep the process alive (see write); after the listeners, which ref.
    started.unref();
    return started;
  };

  return {
    write(source, pulls) {
      worker ??= start();
      const id = nextId++;
      const written = new Promise<void>((resolve, reject) => {
        waiting.set(id, { resolve, reject });
      });
      worker.ref();
      worker.postMessage({ id, source, pulls });
      return written;
    },
    async close() {
      const stopping = worker;
      worker = undefined;
      if (!stopping) return;
      // Messages are handled in order: the writes sent before this one finish first. The
      // thread's end is awaited however it ends (a failed close is an 'error', then the exit).
      const exited = new Promise((resolve) => stopping.once("exit", resolve));
      stopping.ref();
      stopping.postMessage({ close: true });
      await exited;
    },
  };
}
