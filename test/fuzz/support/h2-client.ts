import http2 from "node:http2";
import { NoAnswer } from "./raw-http.ts";

/** A request on an HTTP/2 stream. */
export interface H2Request {
  path: string;
  headers: Record<string, string>;
  body: Buffer;
}

/** A complete HTTP/2 answer, trailers included. */
export interface H2Answer {
  status: number;
  headers: Record<string, string>;
  trailers: Record<string, string>;
  body: Buffer;
  ms: number;
  /** The RST_STREAM code when the server reset the stream (0 is NO_ERROR). */
  resetCode?: number;
}

/** One cleartext HTTP/2 session (prior knowledge), reopened whenever it has gone away. */
export interface H2Client {
  send(request: H2Request, timeoutMs?: number): Promise<H2Answer>;
  close(): void;
}

/** A client of `origin` (`http://host:port`). */
export function h2Client(origin: string): H2Client {
  let session: http2.ClientHttp2Session | undefined;
  const open = () => {
    if (!session || session.closed || session.destroyed) {
      session = http2.connect(origin);
      session.on("error", () => undefined);
    }
    return session;
  };
  return {
    send(request, timeoutMs = 5000) {
      const started = performance.now();
      return new Promise((resolve, reject) => {
        const stream = open().request({
          ":method": "POST",
          ":path": request.path,
          ...request.headers,
        });
        let headers: Record<string, string> = {};
        let trailers: Record<string, string> = {};
        let status = 0;
        const chunks: Buffer[] = [];
        const timer = setTimeout(() => {
          stream.close(http2.constants.NGHTTP2_CANCEL);
          reject(new NoAnswer(`no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        stream.on("response", (h) => {
          status = Number(h[":status"]);
          headers = flatten(h);
        });
        stream.on("trailers", (t) => {
          trailers = flatten(t);
        });
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.on("error", () => undefined);
        stream.on("close", () => {
          clearTimeout(timer);
          const ms = performance.now() - started;
          if (status === 0) {
            reject(new NoAnswer(`stream closed without an answer (rst ${stream.rstCode})`));
            return;
          }
          const body = Buffer.concat(chunks);
          const resetCode = stream.rstCode || undefined;
          resolve({ status, headers, trailers, body, ms, resetCode });
        });
        stream.end(request.body);
      });
    },
    close() {
      session?.close();
    },
  };
}

function flatten(h: http2.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(h)) {
    if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : String(value);
  }
  return out;
}
