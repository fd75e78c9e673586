import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import http2 from "node:http2";
import { after, before, describe, it } from "node:test";
import {
  connectRaw,
  destroyRawConnections,
  type RawConnection,
  within,
} from "../../test/support/raw-connections.ts";
import { makeCertificate } from "../../test/support/tls.ts";
import type { ConnectionLimits } from "../config/index.ts";
import { type HttpRequest, type HttpResponse, markAuthenticatedUpload } from "../rpc/index.ts";
import { createListener, type Listener, type TlsOptions } from "./listener.ts";

/** Reads the whole body and answers how many bytes it had; `/upload` is an authenticated upload. */
function countBody(req: HttpRequest, res: HttpResponse): void {
  if (req.url?.startsWith("/upload")) markAuthenticatedUpload(req);
  if (req.url === "/upload-refused") {
    res.statusCode = 403;
    res.end("refused");
    return;
  }
  let bytes = 0;
  req.on("data", (chunk: Buffer) => (bytes += chunk.length));
  req.on("end", () => res.end(String(bytes)));
  req.on("error", () => {});
}

/** The deadline alone (no minimum rate), the rate alone (a long deadline); a 2 s idle timeout. */
const deadlineOnly: Partial<ConnectionLimits> = {
  requestIdleTimeoutMs: 2000,
  requestBodyTimeoutMs: 800,
  minBodyBytesPerSecond: 0,
};
const rateOnly: Partial<ConnectionLimits> = {
  requestIdleTimeoutMs: 2000,
  requestBodyTimeoutMs: 60_000,
  minBodyBytesPerSecond: 1024,
  bodyRateWindowMs: 600,
};

/** Sends `chunk` every `everyMs` until stopped. */
function drip(write: (chunk: Buffer) => void, chunk: Buffer, everyMs: number) {
  const timer = setInterval(() => write(chunk), everyMs);
  return () => clearInterval(timer);
}

/** Asserts that `closed` came after about `limitMs` (loose bounds for a loaded machine). */
async function assertCutAfter(closed: Promise<number>, limitMs: number) {
  const ms = await within(closed, limitMs + 3000);
  assert.notEqual(ms, "timed out", "the server kept the body going");
  assert.ok((ms as number) >= limitMs * 0.8, `cut after ${ms} ms, before the limit`);
}

/** An HTTP/1.1 POST of a body that never ends, dripped on a raw connection. */
async function h1Drip(port: number, path: string, chunk: Buffer, everyMs: number, ca?: string) {
  const conn = await connectRaw(port, { ca, alpn: ["http/1.1"] });
  conn.socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 100000000\r\n\r\n`);
  const stop = drip((c) => conn.socket.write(c), chunk, everyMs);
  conn.closed.finally(stop);
  return conn;
}

/** An HTTP/2 stream of a body that never ends, dripped; resolves when it is reset, with the code. */
function h2Drip(url: string, path: string, chunk: Buffer, everyMs: number, ca?: string) {
  const session = http2.connect(url, { ca });
  session.on("error", () => {});
  const stream = session.request({ ":method": "POST", ":path": path });
  stream.on("error", () => {});
  const stop = drip((c) => stream.write(c), chunk, everyMs);
  const started = Date.now();
  const closed = new Promise<number>((resolve) =>
    stream.once("close", () => {
      stop();
      resolve(Date.now() - started);
    }),
  );
  return { closed, stream, session, stop };
}

for (const secure of [false, true]) {
  describe(`request body deadline and minimum rate [${secure ? "TLS" : "cleartext"}]`, () => {
    let dir = "";
    let tls: TlsOptions | undefined;
    const listeners: Listener[] = [];
    const ports = { deadline: 0, rate: 0 };
    const url = (port: number) => `${secure ? "https" : "http"}://127.0.0.1:${port}`;
    before(async () => {
      if (secure) {
        const certificate = await makeCertificate();
        dir = certificate.dir;
        tls = { key: certificate.key, cert: certificate.cert };
      }
      for (const [name, limits] of [
        ["deadline", deadlineOnly],
        ["rate", rateOnly],
      ] as const) {
        const listener = createListener({ handler: countBody, limits, tls });
        listeners.push(listener);
        ports[name] = (await listener.listen("127.0.0.1", 0)).port;
      }
    });
    after(async () => {
      destroyRawConnections();
      await Promise.all(listeners.map((l) => l.close({ timeoutMs: 500 })));
      if (dir) await rm(dir, { recursive: true, force: true });
    });

    it("cuts an HTTP/1.1 body that keeps dripping past the deadline", async () => {
      const conn = await h1Drip(ports.deadline, "/", Buffer.from("x"), 50, tls?.cert);
      await assertCutAfter(conn.closed, deadlineOnly.requestBodyTimeoutMs as number);
      assert.equal(conn.received(), "");
    });

    it("cuts an HTTP/1.1 body slower than the minimum rate after a window", async () => {
      // 20 bytes every 50 ms: 400 B/s, under 1 KiB/s; it never stalls.
      const conn = await h1Drip(ports.rate, "/", Buffer.alloc(20, "x"), 50, tls?.cert);
      await assertCutAfter(conn.closed, rateOnly.bodyRateWindowMs as number);
    });

    it("cancels an HTTP/2 stream dripping past the deadline, or under the rate", async () => {
      const late = h2Drip(url(ports.deadline), "/", Buffer.from("x"), 50, tls?.cert);
      const slow = h2Drip(url(ports.rate), "/", Buffer.alloc(20, "x"), 50, tls?.cert);
      await assertCutAfter(late.closed, deadlineOnly.requestBodyTimeoutMs as number);
      await assertCutAfter(slow.closed, rateOnly.bodyRateWindowMs as number);
      assert.equal(late.stream.rstCode, http2.constants.NGHTTP2_CANCEL);
      assert.equal(slow.stream.rstCode, http2.constants.NGHTTP2_CANCEL);
      late.session.destroy();
      slow.session.destroy();
    });

    it("does not cut a body above the rate, nor an authenticated upload past either", async () => {
      // 2 KiB every 100 ms for 1.5 s: above the rate, the window measured twice.
      const fast = await h1Drip(ports.rate, "/", Buffer.alloc(2048, "x"), 100, tls?.cert);
      // An upload dripping 1 byte every 50 ms for twice the deadline, over HTTP/1.1 and HTTP/2.
      const upload = await h1Drip(ports.deadline, "/upload", Buffer.from("x"), 50, tls?.cert);
      const upload2 = h2Drip(url(ports.deadline), "/upload", Buffer.from("x"), 50, tls?.cert);
      const cut = (conn: RawConnection | { closed: Promise<number> }) =>
        within(conn.closed, 1600).then((r) => r !== "timed out");
      assert.deepEqual(await Promise.all([cut(fast), cut(upload), cut(upload2)]), [
        false,
        false,
        false,
      ]);
      upload2.stop();
      upload2.stream.end();
      const answer = await new Promise<string>((resolve) => {
        let text = "";
        upload2.stream.on("data", (c: Buffer) => (text += c));
        upload2.stream.on("end", () => resolve(text));
      });
      assert.ok(Number(answer) >= 20, `the upload's ${answer} bytes were read`);
      upload2.session.destroy();
    });

    it("holds the rest of a refused upload to the deadline, from the answer", async () => {
      const conn = await h1Drip(ports.deadline, "/upload-refused", Buffer.from("x"), 50, tls?.cert);
      await assertCutAfter(conn.closed, deadlineOnly.requestBodyTimeoutMs as number);
      assert.match(conn.received(), /^HTTP\/1\.1 403 /);
    });

    it("still cuts an authenticated upload that stops", async () => {
      const stalled = await connectRaw(ports.rate, { ca: tls?.cert, alpn: ["http/1.1"] });
      stalled.socket.write("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n12345");
      // The idle timeout is 2 s.
      await assertCutAfter(stalled.closed, rateOnly.requestIdleTimeoutMs as number);
    });
  });
}
