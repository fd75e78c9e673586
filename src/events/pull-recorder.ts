import type { Kysely } from "kysely";
import type { Logger } from "pino";
import { type MetadataSchema, runInTransaction } from "../store/metadata/index.ts";
import type { NewEvent } from "./record-event.ts";
import { recordEvents } from "./record-events.ts";
import { civilTime, type EventRepo, type RegistryClient } from "./registry-events.ts";

/** How often buffered pull events are written. */
export const pullFlushMs = 250;
/** Buffered pull events that trigger a write before the timer. */
export const pullFlushSize = 500;
/**
 * Pull events held at most: beyond it (the store is down or slower than the pulls) new ones are
 * dropped and counted, so a stalled store cannot grow the buffer without bound.
 */
export const pullBufferLimit = 50_000;

/** One manifest GET or HEAD that answered. */
export interface Pull {
  repo: EventRepo;
  repository: string;
  /** The tag pulled by, "" for a pull by digest. */
  tag: string;
  digest: string;
  mediaType: string;
  method: "GET" | "HEAD";
  client: RegistryClient;
}

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
}): PullRecorder {
  let buffer: NewEvent[] = [];
  let dropped = 0;
  let writing: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;

  function flush(): Promise<void> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (buffer.length === 0) return writing;
    const batch = buffer;
    buffer = [];
    // One write at a time, in pull order; a failed batch is logged, not retried (see above).
    writing = writing.then(() =>
      runInTransaction(options.db, (db) => recordEvents(db, batch)).catch((err: unknown) =>
        options.log.warn({ err, events: batch.length }, "writing pull events failed"),
      ),
    );
    return writing;
  }

  return {
    record(pull) {
      if (buffer.length >= pullBufferLimit) {
        dropped++;
        return;
      }
      const time = new Date().toISOString();
      const body: Record<string, string> = {
        repository: pull.repository,
        repo_id: pull.repo.uid,
        digest: pull.digest,
        method: pull.method,
        type: "manifest",
        when: civilTime(time),
        remote_address: pull.client.remoteAddress,
        user_agent: pull.client.userAgent,
      };
      if (pull.tag !== "") body.tag = pull.tag;
      buffer.push({
        type: "dev.lading.registry.pull.v1",
        source: options.registryUrl(),
        subject: pull.repo.uid,
        groupUid: pull.repo.root_uid,
        actor: pull.client.actor,
        body,
        extensions: { digest: pull.digest, mediatype: pull.mediaType },
        time,
      });
      if (buffer.length >= pullFlushSize) void flush();
      else timer ??= setTimeout(flush, pullFlushMs).unref();
    },
    flush,
    pending: () => buffer.length,
    dropped: () => dropped,
    close: flush,
  };
}
