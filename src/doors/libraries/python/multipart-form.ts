import { PassThrough, type Readable } from "node:stream";
import { LibraryError } from "../../../libraries/index.ts";

/** Bounds on a multipart form: everything but the one file part is held in memory. */
export interface MultipartLimits {
  /** Most parts (fields and files). */
  parts: number;
  /** Longest field value, bytes. */
  fieldBytes: number;
  /** All field values together, bytes. */
  totalFieldBytes: number;
  /** Most file parts (parts with a `filename`). */
  files: number;
}

/** A file part as it arrives: its bytes are streamed to the handler, never buffered whole. */
export interface MultipartFile {
  field: string;
  filename: string;
  contentType: string;
  body: Readable;
}

/** The form's text fields, each name with its values in order (twine repeats `classifiers`). */
export type FormFields = Map<string, string[]>;

const maxHeaderBytes = 16 * 1024;
/** Bytes before the first and after the last boundary, which the form ignores. */
const maxPreambleBytes = 64 * 1024;

/** The boundary of a `multipart/form-data` Content-Type, or why there is none. */
export function parseFormBoundary(contentType: string | undefined): {
  value?: string;
  error?: string;
} {
  const [type = "", ...params] = (contentType ?? "").split(";");
  if (type.trim().toLowerCase() !== "multipart/form-data") {
    return { error: "the upload must be multipart/form-data" };
  }
  for (const param of params) {
    const eq = param.indexOf("=");
    if (param.slice(0, eq).trim().toLowerCase() !== "boundary") continue;
    const value = param
      .slice(eq + 1)
      .trim()
      .replace(/^"(.*)"$/, "$1");
    // RFC 2046: 1 to 70 characters.
    if (value.length >= 1 && value.length <= 70) return { value };
  }
  return { error: "the multipart Content-Type has no valid boundary" };
}

/**
 * Reads a `multipart/form-data` body (RFC 7578) from `source`: text fields are collected within
 * `limits`; each file part is handed to `onFile` as a stream, and reading waits (backpressure)
 * until `onFile` has consumed it, so a file of any size passes through in chunks. A malformed
 * or oversized form throws LibraryError 400; an `onFile` failure is thrown as it is.
 */
export async function readMultipartForm(
  source: AsyncIterable<Buffer>,
  boundary: string,
  limits: MultipartLimits,
  onFile: (file: MultipartFile, fieldsSoFar: FormFields) => Promise<void>,
): Promise<FormFields> {
  const bad = (message: string) => new LibraryError(400, `malformed upload: ${message}`);
  const delimiter = Buffer.from(`\r\n--${boundary}`);
  const iterator = source[Symbol.asyncIterator]();
  // The leading CRLF lets the first boundary match the same delimiter as the others.
  let buf: Buffer = Buffer.from("\r\n");
  // `buf` is the unread end of `room` when a chunk was appended into it: room grows by doubling,
  // so a field or header block sent in tiny chunks costs linear copying, not a copy per chunk.
  let room: Buffer = Buffer.alloc(0);
  let ended = false;
  const append = (chunk: Buffer) => {
    if (buf.length === 0) {
      buf = chunk;
      return;
    }
    const start = buf.byteOffset - room.byteOffset;
    const inRoom = buf.buffer === room.buffer && start >= 0 && start + buf.length <= room.length;
    const end = start + buf.length;
    if (inRoom && end + chunk.length <= room.length) {
      chunk.copy(room, end);
      buf = room.subarray(start, end + chunk.length);
      return;
    }
    // Bytes before `buf` were handed out (file chunks in flight): a new room, never reused.
    const grown = Buffer.allocUnsafe(Math.max(2 * (buf.length + chunk.length), 64 * 1024));
    buf.copy(grown, 0);
    chunk.copy(grown, buf.length);
    room = grown;
    buf = grown.subarray(0, buf.length + chunk.length);
  };
  const more = async (): Promise<boolean> => {
    if (ended) return false;
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      return false;
    }
    append(next.value);
    return true;
  };
  /** Where to look for `needle` again after more bytes: just before what was searched. */
  const resume = (searched: number, needle: string | Buffer) =>
    Math.max(0, searched - needle.length + 1);

  let skipped = 0;
  for (let at = buf.indexOf(delimiter); ; at = buf.indexOf(delimiter)) {
    if (at >= 0) {
      buf = buf.subarray(at + delimiter.length);
      break;
    }
    const drop = Math.max(0, buf.length - delimiter.length);
    skipped += drop;
    buf = buf.subarray(drop);
    if (skipped > maxPreambleBytes) throw bad("no boundary at the start of the body");
    if (!(await more())) throw bad("no boundary in the body");
  }

  const fields: FormFields = new Map();
  let parts = 0;
  let files = 0;
  let fieldBytes = 0;
  for (;;) {
    while (buf.length < 2) if (!(await more())) throw bad("the body ends after a boundary");
    if (buf[0] === 0x2d && buf[1] === 0x2d) break; // "--": the closing boundary.
    let eol = buf.indexOf("\r\n");
    while (eol < 0) {
      if (buf.length > 256) throw bad("a boundary line is too long");
      const searched = buf.length;
      if (!(await more())) throw bad("the body ends after a boundary");
      eol = buf.indexOf("\r\n", resume(searched, "\r\n"));
    }
    buf = buf.subarray(eol + 2);
    let end = buf.indexOf("\r\n\r\n");
    while (end < 0) {
      if (buf.length > maxHeaderBytes) throw bad("part headers are too long");
      const searched = buf.length;
      if (!(await more())) throw bad("the body ends inside part headers");
      end = buf.indexOf("\r\n\r\n", resume(searched, "\r\n\r\n"));
    }
    const header = parsePartHeaders(buf.subarray(0, end).toString("utf8"));
    if (header.value === undefined) throw bad(header.error ?? "bad part headers");
    buf = buf.subarray(end + 4);
    if (++parts > limits.parts) throw bad(`more than ${limits.parts} parts`);
    const { name, filename, contentType } = header.value;

    if (filename === undefined) {
      let at = buf.indexOf(delimiter);
      while (at < 0) {
        if (buf.length > limits.fieldBytes + delimiter.length) {
          throw bad(`field ${name} is longer than ${limits.fieldBytes} bytes`);
        }
        const searched = buf.length;
        if (!(await more())) throw bad(`the body ends inside field ${name}`);
        at = buf.indexOf(delimiter, resume(searched, delimiter));
      }
      if (at > limits.fieldBytes)
        throw bad(`field ${name} is longer than ${limits.fieldBytes} bytes`);
      fieldBytes += at;
      if (fieldBytes > limits.totalFieldBytes) {
        throw bad(`the fields are longer than ${limits.totalFieldBytes} bytes together`);
      }
      const values = fields.get(name) ?? [];
      values.push(buf.subarray(0, at).toString("utf8"));
      fields.set(name, values);
      buf = buf.subarray(at + delimiter.length);
      continue;
    }

    if (++files > limits.files) throw bad(`more than ${limits.files} file part(s)`);
    const body = new PassThrough();
    const consumed = onFile({ field: name, filename, contentType, body }, fields);
    // Seen before the writes: a failed consumer (size limit, client gone) ends the reading.
    let failure: unknown;
    consumed.catch((error: unknown) => {
      failure = error ?? new Error("file consumer failed");
      body.emit("drain");
    });
    const write = async (chunk: Buffer) => {
      if (chunk.length === 0 || failure !== undefined) return;
      if (!body.write(chunk)) {
        await new Promise<void>((resolve) => {
          body.once("drain", resolve);
          body.once("close", resolve);
        });
      }
    };
    for (;;) {
      const at = buf.indexOf(delimiter);
      if (at >= 0) {
        await write(buf.subarray(0, at));
        buf = buf.subarray(at + delimiter.length);
        break;
      }
      // Everything but a possible start of the delimiter can go on.
      const keep = Math.min(buf.length, delimiter.length - 1);
      await write(buf.subarray(0, buf.length - keep));
      buf = buf.subarray(buf.length - keep);
      if (failure !== undefined) break;
      if (!(await more())) {
        body.destroy(bad(`the body ends inside file ${filename}`));
        failure ??= bad(`the body ends inside file ${filename}`);
        break;
      }
    }
    if (failure === undefined) body.end();
    await consumed;
    if (failure !== undefined) throw failure;
  }
  // The epilogue after the closing boundary is ignored, but read so the connection stays usable.
  let epilogue = buf.length;
  buf = Buffer.alloc(0);
  while (await more()) {
    epilogue += buf.length;
    buf = Buffer.alloc(0);
    if (epilogue > maxPreambleBytes) throw bad("too much data after the closing boundary");
  }
  return fields;
}

/** The name, file name and type of one part, from its header block. */
function parsePartHeaders(text: string): {
  value?: { name: string; filename?: string; contentType: string };
  error?: string;
} {
  let disposition: string | undefined;
  let contentType = "application/octet-stream";
  for (const line of text.split("\r\n")) {
    const colon = line.indexOf(":");
    if (colon < 0) return { error: "a part header line has no colon" };
    const key = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    if (key === "content-disposition") disposition = value;
    else if (key === "content-type") contentType = value;
  }
  if (disposition === undefined) return { error: "a part has no Content-Disposition" };
  const semi = disposition.indexOf(";");
  const kind = semi < 0 ? disposition : disposition.slice(0, semi);
  if (kind.trim().toLowerCase() !== "form-data") return { error: "a part is not form-data" };
  const paramText = semi < 0 ? "" : disposition.slice(semi + 1);
  const params = new Map<string, string>();
  // Quoted values may contain ";". They are taken literally: clients percent-encode `"` and
  // never backslash-escape (RFC 7578 §4.2), so a `\` stays in the name to be refused.
  const pattern = /\s*([A-Za-z*]+)\s*=\s*(?:"([^"]*)"|([^;]*))\s*;?/y;
  for (
    let m = pattern.exec(paramText);
    m !== null && m[0].length > 0;
    m = pattern.exec(paramText)
  ) {
    params.set(m[1].toLowerCase(), m[2] ?? m[3].trim());
  }
  const name = params.get("name");
  if (!name) return { error: "a part has no name" };
  if (name.length > 100) return { error: "a part name is longer than 100 characters" };
  return { value: { name, filename: params.get("filename"), contentType } };
}
