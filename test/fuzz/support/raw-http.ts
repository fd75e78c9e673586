import net from "node:net";

/** An HTTP/1.1 request as bytes on the wire: nothing is validated or normalised. */
export interface RawRequest {
  method: string;
  /** The request-target, sent as UTF-8 bytes (raw non-ASCII and spaces included). */
  target: string;
  headers?: [string, string][];
  body?: Buffer;
  /**
   * The Content-Length to declare: the body's length by default, `"omit"` for none, a number
   * for a deliberate mismatch.
   */
  contentLength?: number | "omit";
}

/** Sends `bytes` as they are, in `chunk`-byte pieces `pauseMs` apart. */
export interface Drip {
  bytes: Buffer;
  chunk: number;
  pauseMs: number;
}

/** A complete answer. */
export interface RawAnswer {
  status: number;
  /** Lower-case names; repeated headers joined with ", ". */
  headers: Record<string, string>;
  body: Buffer;
  /** From the first byte sent to the last byte of the answer. */
  ms: number;
}

/** No complete answer arrived: the connection closed, reset or timed out first. */
export class NoAnswer extends Error {
  override name = "NoAnswer";
}

/**
 * Sends `request` on a new connection to `origin` (`http://host:port`) with `connection:
 * close` and resolves with the first complete answer. A write error after a complete answer
 * is ignored: the server may answer before it has read the body.
 */
export function sendRaw(origin: string, request: RawRequest, timeoutMs = 5000): Promise<RawAnswer> {
  const url = new URL(origin);
  const bytes = encodeRequest(url.host, request);
  const whole = request.body ? Buffer.concat([bytes, request.body]) : bytes;
  return exchange(
    url,
    { bytes: whole, chunk: whole.length, pauseMs: 0 },
    request.method,
    timeoutMs,
  );
}

/**
 * Drips `drip.bytes` (a whole HTTP/1.1 request) to `origin` and resolves with the answer; the
 * answer time counts from the last byte sent.
 */
export function sendDrip(origin: string, drip: Drip, timeoutMs = 5000): Promise<RawAnswer> {
  const method = drip.bytes.subarray(0, drip.bytes.indexOf(" ")).toString("latin1");
  return exchange(new URL(origin), drip, method, timeoutMs);
}

function exchange(url: URL, drip: Drip, method: string, timeoutMs: number): Promise<RawAnswer> {
  let started = performance.now();
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(url.port), url.hostname);
    let received = Buffer.alloc(0);
    let done = false;
    const finish = (error?: Error, eof = false) => {
      if (done) return;
      const answer = parseAnswer(received, method === "HEAD", eof);
      if (!answer && !error) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      if (answer) resolve({ ...answer, ms: performance.now() - started });
      else reject(error);
    };
    let timer: NodeJS.Timeout | undefined;
    const arm = () => {
      started = performance.now();
      timer = setTimeout(() => finish(new NoAnswer(`no answer within ${timeoutMs} ms`)), timeoutMs);
    };
    socket.on("data", (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      finish();
    });
    socket.on("error", (err) => finish(new NoAnswer(`connection error ${err.message}`)));
    socket.on("close", () =>
      finish(
        new NoAnswer(`connection closed after ${received.length} bytes without an answer`),
        true,
      ),
    );
    const send = async () => {
      for (let at = 0; at < drip.bytes.length && !done; at += drip.chunk) {
        if (at > 0) await new Promise((r) => setTimeout(r, drip.pauseMs));
        socket.write(drip.bytes.subarray(at, at + drip.chunk));
      }
      if (!done) arm();
    };
    void send();
  });
}

function encodeRequest(host: string, request: RawRequest): Buffer {
  const lines = [`${request.method} ${request.target} HTTP/1.1`];
  const headers = request.headers ?? [];
  const has = (name: string) => headers.some(([n]) => n.toLowerCase() === name);
  if (!has("host")) lines.push(`host: ${host}`);
  if (!has("connection")) lines.push("connection: close");
  const length = request.contentLength ?? request.body?.length ?? 0;
  if (length !== "omit" && !has("content-length") && (request.body || length !== 0)) {
    lines.push(`content-length: ${length}`);
  }
  for (const [name, value] of headers) lines.push(`${name}: ${value}`);
  return Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "utf8");
}

/** The first complete answer in `bytes`, or undefined while it is incomplete. */
function parseAnswer(
  bytes: Buffer,
  head: boolean,
  eof: boolean,
): Omit<RawAnswer, "ms"> | undefined {
  const end = bytes.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const [statusLine, ...lines] = bytes.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(statusLine.split(" ")[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
  }
  // Interim answers (100 Continue) carry no body; the final answer follows them.
  if (status >= 100 && status < 200) return parseAnswer(bytes.subarray(end + 4), head, eof);
  const rest = bytes.subarray(end + 4);
  if (head || status === 204 || status === 304) return { status, headers, body: Buffer.alloc(0) };
  if (/chunked/i.test(headers["transfer-encoding"] ?? "")) {
    const body = dechunk(rest);
    return body && { status, headers, body };
  }
  if (headers["content-length"] !== undefined) {
    const length = Number(headers["content-length"]);
    return rest.length >= length ? { status, headers, body: rest.subarray(0, length) } : undefined;
  }
  // Neither length nor chunking: the body runs to the end of the connection.
  return eof ? { status, headers, body: rest } : undefined;
}

function dechunk(bytes: Buffer): Buffer | undefined {
  const parts: Buffer[] = [];
  let at = 0;
  for (;;) {
    const eol = bytes.indexOf("\r\n", at);
    if (eol < 0) return undefined;
    const size = Number.parseInt(bytes.subarray(at, eol).toString("latin1"), 16);
    if (Number.isNaN(size)) return Buffer.concat(parts);
    if (size === 0) return Buffer.concat(parts);
    if (bytes.length < eol + 2 + size + 2) return undefined;
    parts.push(bytes.subarray(eol + 2, eol + 2 + size));
    at = eol + 2 + size + 2;
  }
}
