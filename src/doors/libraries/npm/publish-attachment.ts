import { PassThrough, type Writable } from "node:stream";
import { type StoredLibraryFile, storeLibraryFile } from "../../../libraries/index.ts";
import type { LibraryContext } from "../library-context.ts";
import { createBase64Decoder } from "./base64-decoder.ts";
import type { AttachmentSink } from "./publish-body.ts";
import { inspectTarball, type TarballFacts } from "./tarball-inspector.ts";

/** An attachment streaming into the blob store and through the tarball inspector. */
export interface OpenAttachment {
  key: string;
  sink: AttachmentSink;
  stored: Promise<StoredLibraryFile>;
  facts: Promise<TarballFacts>;
  abort(error: Error): void;
}

/** Starts storing and inspecting one attachment whose base64 text is about to stream in. */
export function openAttachment(
  ctx: LibraryContext,
  key: string,
  expected: { sha1?: string; sha512?: string },
): OpenAttachment {
  const decoder = createBase64Decoder();
  const toStore = new PassThrough();
  const toInspect = new PassThrough();
  const stored = storeLibraryFile(ctx.blobs, toStore, { expected, maxBytes: ctx.maxFileBytes });
  const facts = inspectTarball(toInspect, ctx.maxFileBytes * 8);
  // Both are awaited later; until then a failure must not count as unhandled.
  stored.catch(() => {});
  facts.catch(() => {});
  const feed = async (bytes: Buffer) => {
    try {
      await Promise.all([write(toStore, bytes), write(toInspect, bytes)]);
    } catch (error) {
      // A consumer stopped: its own error says why (a digest mismatch, a size limit). The one
      // whose stream closed has failed or is about to; the other may wait for more input.
      const failed = toStore.destroyed ? stored : facts;
      throw await failed.then(
        () => error,
        (reason: unknown) => reason,
      );
    }
  };
  return {
    key,
    stored,
    facts,
    sink: {
      async write(text) {
        const bytes = decoder.push(text);
        if (bytes.length > 0) await feed(bytes);
      },
      async end() {
        decoder.end();
        toStore.end();
        toInspect.end();
      },
    },
    abort(error) {
      toStore.destroy(error);
      toInspect.destroy(error);
    },
  };
}

/** Both consumers' results, or the more telling failure. */
export async function settle(a: OpenAttachment): Promise<[StoredLibraryFile, TarballFacts]> {
  const [stored, facts] = await Promise.allSettled([a.stored, a.facts]);
  if (facts.status === "rejected") throw facts.reason;
  if (stored.status === "rejected") throw stored.reason;
  return [stored.value, facts.value];
}

/** Writes with backpressure; rejects when the stream is destroyed instead of draining. */
function write(stream: Writable, bytes: Buffer): Promise<void> {
  if (stream.destroyed) return Promise.reject(new Error("stream closed"));
  if (stream.write(bytes)) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const done = (error?: Error) => {
      stream.off("drain", drained);
      stream.off("close", closed);
      if (error) reject(error);
      else resolve();
    };
    const drained = () => done();
    const closed = () => done(new Error("stream closed"));
    stream.once("drain", drained);
    stream.once("close", closed);
  });
}
