import { LibraryError } from "../../../libraries/index.ts";

/** Where the base64 text of one attachment goes while the body streams past. */
export interface AttachmentSink {
  /** Base64 characters (ASCII), in order; may await backpressure. */
  write(text: Buffer): Promise<void>;
  /** The closing quote was read. */
  end(): Promise<void>;
}

/** Limits and hooks of {@link readPublishBody}. */
export interface PublishBodyOptions {
  /** Largest body, bytes (413 past it). */
  maxBodyBytes: number;
  /** Largest body without the attachments' data, bytes (413 past it). */
  maxDocumentBytes: number;
  /** Deepest nesting of objects and arrays (400 past it). */
  maxDepth: number;
  /** Called where `_attachments.<name>.data` starts; may throw to refuse it. */
  openAttachment(name: string): Promise<AttachmentSink>;
  /**
   * Called with the parsed top-level `versions` as soon as it closes. npm sends it before the
   * attachments, so the declared digests are known before the tarball's bytes arrive.
   */
  onVersions(versions: unknown): void;
}

const quote = 0x22;
const backslash = 0x5c;
const maxKeyBytes = 1024;

interface Frame {
  object: boolean;
  /** The last key read in an object. */
  key: string;
  /** True between `{`/`,` and the next key in an object. */
  expectKey: boolean;
}

/**
 * Reads the JSON document of `npm publish` from `body` without holding the tarball: the
 * characters of each `_attachments.<name>.data` string go to a sink as they arrive and the rest
 * of the document (manifests, dist-tags) is kept, bounded, and parsed at the end with each data
 * string left empty. The scanner only tracks strings, nesting and keys, in one linear pass;
 * JSON.parse checks the grammar of what is kept. Escapes inside a data string are refused:
 * base64 never needs them.
 */
export async function readPublishBody(
  body: AsyncIterable<Buffer>,
  options: PublishBodyOptions,
): Promise<unknown> {
  const stack: Frame[] = [];
  const kept: Buffer[] = [];
  let keptBytes = 0;
  let total = 0;
  let rootSeen = false;
  // String state: inside one, after a backslash, the key being read, the sink of a data string.
  let inString = false;
  let escaped = false;
  let key: Buffer[] | undefined;
  let keyBytes = 0;
  let sink: AttachmentSink | undefined;
  let versionsStart = -1;

  const keep = (part: Buffer) => {
    if (part.length === 0) return;
    keptBytes += part.length;
    if (keptBytes > options.maxDocumentBytes) {
      throw new LibraryError(
        413,
        `the publish document without its attachments exceeds ${options.maxDocumentBytes} bytes`,
      );
    }
    kept.push(part);
  };

  for await (const chunk of body) {
    total += chunk.length;
    if (total > options.maxBodyBytes) {
      throw new LibraryError(413, `the publish body exceeds ${options.maxBodyBytes} bytes`);
    }
    let from = 0;
    let i = 0;
    while (i < chunk.length) {
      if (inString) {
        const end: number = sink ? chunk.indexOf(quote, i) : scanString(chunk, i, escaped);
        if (sink) {
          const stop = end < 0 ? chunk.length : end;
          const bad = chunk.indexOf(backslash, i);
          if (bad >= 0 && bad < stop) {
            throw new LibraryError(400, "attachment data is not base64: it contains an escape");
          }
          if (stop > i) await sink.write(chunk.subarray(i, stop));
          if (end < 0) {
            i = chunk.length;
            from = i;
            break;
          }
          await sink.end();
          sink = undefined;
          inString = false;
          from = end;
          i = end + 1;
          continue;
        }
        // scanString: >= 0 the closing quote; -1 the chunk ended inside; -2 after a backslash.
        const stop = end >= 0 ? end : chunk.length;
        escaped = end === -2;
        if (key) {
          keyBytes += stop - i;
          if (keyBytes > maxKeyBytes) throw new LibraryError(400, "a key is too long");
          key.push(Buffer.from(chunk.subarray(i, stop)));
        }
        if (end < 0) break;
        inString = false;
        if (key) {
          stack[stack.length - 1].key = decodeKey(key);
          key = undefined;
        }
        i = end + 1;
        continue;
      }
      const c = chunk[i];
      if (c === quote) {
        inString = true;
        const top = stack[stack.length - 1];
        if (top?.object && top.expectKey) {
          key = [];
          keyBytes = 0;
          top.expectKey = false;
        } else if (isAttachmentData(stack)) {
          keep(chunk.subarray(from, i + 1));
          sink = await options.openAttachment(stack[1].key);
          from = i + 1;
        }
      } else if (c === 0x7b || c === 0x5b) {
        if (stack.length === 0) {
          if (rootSeen || c !== 0x7b) throw new LibraryError(400, "the body is not a JSON object");
          rootSeen = true;
        }
        if (stack.length >= options.maxDepth) {
          throw new LibraryError(400, `the document nests deeper than ${options.maxDepth} levels`);
        }
        if (stack.length === 1 && stack[0].key === "versions") {
          versionsStart = keptBytes + (i - from);
        }
        stack.push({ object: c === 0x7b, key: "", expectKey: c === 0x7b });
      } else if (c === 0x7d || c === 0x5d) {
        if (stack.pop() === undefined) throw new LibraryError(400, "the body is not JSON");
        if (stack.length === 1 && versionsStart >= 0) {
          keep(chunk.subarray(from, i + 1));
          from = i + 1;
          options.onVersions(parseKept(Buffer.concat(kept).subarray(versionsStart)));
          versionsStart = -1;
        }
      } else if (c === 0x2c) {
        const top = stack[stack.length - 1];
        if (top?.object) top.expectKey = true;
      } else if (stack.length === 0 && c > 0x20) {
        throw new LibraryError(400, "the body is not a JSON object");
      }
      i++;
    }
    if (!sink) keep(chunk.subarray(from));
  }
  if (!rootSeen || stack.length > 0 || inString) {
    throw new LibraryError(400, "the body ends before its JSON document does");
  }
  return parseKept(Buffer.concat(kept));
}

/**
 * From `i` in a string: the index of its closing quote, -1 if the chunk ends inside it, -2 if
 * it ends right after a backslash. `escaped`: the previous chunk ended after a backslash.
 */
function scanString(chunk: Buffer, i: number, escaped: boolean): number {
  let at = escaped ? i + 1 : i;
  // The quote is searched again only when an escape passes it, so the scan stays linear.
  let q = chunk.indexOf(quote, at);
  for (;;) {
    const b = chunk.indexOf(backslash, at);
    if (b < 0 || (q >= 0 && q < b)) return q;
    if (b + 1 >= chunk.length) return -2;
    at = b + 2;
    if (q >= 0 && q < at) q = chunk.indexOf(quote, at);
  }
}

/** True where the next value is `_attachments.<name>.data` of the top-level object. */
function isAttachmentData(stack: Frame[]): boolean {
  return (
    stack.length === 3 &&
    stack[0].key === "_attachments" &&
    stack[1].object &&
    stack[2].object &&
    stack[2].key === "data"
  );
}

function decodeKey(parts: Buffer[]): string {
  const raw = Buffer.concat(parts).toString("utf8");
  try {
    return JSON.parse(`"${raw}"`) as string;
  } catch {
    throw new LibraryError(400, "the body is not JSON: a key is malformed");
  }
}

function parseKept(bytes: Buffer): unknown {
  try {
    return JSON.parse(bytes.toString("utf8"));
  } catch (error) {
    throw new LibraryError(400, `the body is not JSON: ${(error as Error).message}`);
  }
}
