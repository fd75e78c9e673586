// The worker thread of workerPullWriter: writes the batches of pull events it is sent, one at a
// time, through its own connection to the SQLite file or the PostgreSQL database.
import { parentPort, workerData } from "node:worker_threads";
import { sql } from "kysely";
import { createMetadataStore, runInTransaction } from "../store/metadata/index.ts";
import { type PullRecord, pullEventOf } from "./pull-event.ts";
import type { PullWriterStore } from "./pull-writer.ts";
import { recordEvents } from "./record-events.ts";

type Message = { close: true } | { id: number; source: string; pulls: PullRecord[] };

const port = parentPort;
if (!port) throw new Error("pull-writer-worker.ts runs as a worker thread");
const { dataDir, databaseUrl } = workerData as PullWriterStore;
// One connection: batches are written one at a time.
const store = createMetadataStore({ dataDir, databaseUrl, poolSize: 1, keepStatistics: false });
// The server's own SQLite transactions (an advisory import, say) may hold the write lock for
// seconds: this thread waits them out, while pulls go on buffering on the other side.
const ready =
  store.dialect === "sqlite"
    ? sql`PRAGMA busy_timeout = 60000`.execute(store.db)
    : Promise.resolve();

let turn: Promise<void> = ready.then(
  () => undefined,
  () => undefined,
);
port.on("message", (message: Message) => {
  turn = turn.then(async () => {
    if ("close" in message) {
      // Whatever closing the connection does, the thread ends: the server waits for it.
      await store.close().finally(() => port.close());
      return;
    }
    try {
      await runInTransaction(store.db, (db) =>
        recordEvents(
          db,
          message.pulls.map((pull) => pullEventOf(pull, message.source)),
        ),
      );
      port.postMessage({ id: message.id });
    } catch (error) {
      port.postMessage({ id: message.id, error: (error as Error).message });
    }
  });
});
