import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { type Pull, type PullRecord, pullRecordOf } from "./pull-event.ts";
import { inProcessPullWriter, type PullWriter } from "./pull-writer.ts";

export type { Pull } from "./pull-event.ts";

/** How often buffered pull events are written. */
export const pullFlushMs = 250;
/** Buffered pull events that trigger a write before the timer. */
export const pullFlushSize = 500;
/**
 * Pull events held at most: beyond it (the store is down or slower than the pulls) new ones are
 * dropped and counted, so a stalled store cannot grow the buffer without bound.
 */
export const pullBufferLimit = 50_000;

/** Collects pull events and writes them in batches. */
export interface PullRecorder {
  /** Buffers the event of `pull`; never waits for the store. */
  record(pull: Pull): void;
  /** Writes what is buffered now. */
  flush(): Promise<void>;
  /** Pull events buffered and not yet being written. */
  pending(): number;
  /** Pull events dropped because the buffer was full. */
  dropped(): number;
  /** Stops the timer and writes what is buffered. */
  close(): Promise<void>;
}

/**
 * Pulls change nothing, so their events need not share a transaction with anything: they are
 * buffered and written `pullFlushSize` at a time, or every `pullFlushMs`, in one transaction,
 * which keeps a write off every manifest GET. A crash loses at most the unwritten buffer.
 */
export function createPullRecorder(options: {
  db: Kysely<MetadataSchema>;
  registryUrl: () => string;
  log: Logger;
  /** Where batches go; by default written through `db` on this thread. */
  writer?: PullWriter;
}): PullRecorder {
  const writer = options.writer ?? inProcessPullWriter(options.db);
  let buffer: PullRecord[] = [];
  let dropped = 0;
  /** Events flushed and waiting for their turn to be written: they count against the limit. */
  let queued = 0;
  let writing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return writing;
    const batch = buffer;
    buffer = [];
    queued += batch.length;
    // One write at a time, in pull order; a failed batch is logged, not retried (see above).
    writing = writing.then(() =>
      writer
        .write(options.registryUrl(), batch)
        .catch((err: unknown) =>
          options.log.warn({ err, events: batch.length }, "writing pull events failed"),
        )
        .finally(() => {
          queued -= batch.length;
        }),
    );
    return writing;
  }

  return {
    record(pull) {
      if (buffer.length + queued >= pullBufferLimit) {
        dropped++;
        return;
      }
      buffer.push(pullRecordOf(pull));
      if (buffer.length >= pullFlushSize) void flush();
      else timer ??= setTimeout(flush, pullFlushMs).unref();
    },
    flush,
    pending: () => buffer.length,
    dropped: () => dropped,
    async close() {
      await flush();
      await writer.close();
    },
  };
}
