// The scan thread of createScanThread: runs the scans and matches it is sent, one at a time,
// through its own connections to the metadata and blob stores, off the thread that answers
// requests.
import { parentPort, workerData } from "node:worker_threads";
import { sql } from "kysely";
import { createBlobStore } from "../../store/blobs/index.ts";
import { createMetadataStore } from "../../store/metadata/index.ts";
import { computeReport } from "../matching/index.ts";
import { runScan } from "./scan-runner.ts";
import type { ScanThreadData, ThreadControl, ThreadReply, ThreadRequest } from "./scan-thread.ts";

const port = parentPort;
if (!port) throw new Error("scan-thread-main.ts runs as a worker thread");
const data = workerData as ScanThreadData;
const store = createMetadataStore({ ...data.store, poolSize: 2, keepStatistics: false });
// The server's own transactions (an advisory import, say) may hold SQLite's write lock for
// seconds: this thread waits them out rather than failing the scan.
const ready = (async () => {
  if (store.dialect === "sqlite") {
    await sql`PRAGMA busy_timeout = 60000`.execute(store.db);
    // The scan mostly appends: 8 MiB of page cache, not the request thread's 64 MiB, keeps the
    // thread's memory to its heap.
    await sql`PRAGMA cache_size = -8192`.execute(store.db);
  }
  return createBlobStore(data.blobs);
})();

let turn: Promise<void> = Promise.resolve();
/** Stops the scan under way when the thread is asked to end. */
const stopping = new AbortController();
port.on("message", (message: ThreadRequest | ThreadControl) => {
  if (message.op === "close") {
    stopping.abort(new Error("the scan thread was closed"));
    void closeAndExit();
    return;
  }
  turn = turn.then(async () => {
    try {
      stopping.signal.throwIfAborted();
      const blobs = await ready;
      if (message.op === "scan") {
        const stores = { ...data, db: store.db, blobs };
        const value = await runScan(stores, message.key, stopping.signal);
        reply({ id: message.id, value });
      } else {
        await computeReport(store.db, message.image);
        reply({ id: message.id });
      }
    } catch (error) {
      reply({ id: message.id, error: error instanceof Error ? error.message : String(error) });
    }
  });
});

/**
 * Ends the thread from inside, between store calls, so its connections close cleanly:
 * terminating it from outside in the middle of a native call has aborted the whole process
 * (with the SQLite addon Lading used before `node:sqlite`).
 */
async function closeAndExit() {
  await turn;
  await ready.catch(() => undefined);
  await store.close().catch(() => undefined);
  process.exit(0);
}

function reply(message: ThreadReply) {
  port?.postMessage(message);
}
