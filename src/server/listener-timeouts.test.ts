import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import http from "node:http";
import http2 from "node:http2";
import { after, before, describe, it } from "node:test";
import {
  connectRaw,
  destroyRawConnections,
  h2Hello,
  h2UnfinishedHeaders,
  within,
} from "../../test/support/raw-connections.ts";
import { makeCertificate } from "../../test/support/tls.ts";
import type { HttpRequest, HttpResponse } from "../rpc/index.ts";
import { createListener, type Listener, type TlsOptions } from "./listener.ts";

const limits = { headersTimeoutMs: 300, requestIdleTimeoutMs: 300, keepAliveTimeoutMs: 300 };

/** Bodies whose reading failed (or that were aborted) so far. */
let failedReads = 0;

/** Reads the whole body and answers how many bytes it had. */
function countBody(req: HttpRequest, res: HttpResponse): void {
  let bytes = 0;
  req.on("data", (chunk: Buffer) => (bytes += chunk.length));
  req.on("end", () => res.end(String(bytes)));
  req.on("error", () => failedReads++);
  req.on("aborted", () => failedReads++);
}

async function start(options: { tls?: TlsOptions } = {}) {
  const listener = createListener({ handler: countBody, limits, ...options });
  const { port } = await listener.listen("127.0.0.1", 0);
  return { listener, port };
}

/** Asserts that the server closed the connection after about `limit` ms, not at once, not never. */
async function assertClosedAfter(closed: Promise<number>, limit: number) {
  const ms = await within(closed, limit + 2000);
  assert.notEqual(ms, "timed out", "the server kept the connection open");
  assert.ok((ms as number) >= limit * 0.8, `closed after ${ms} ms, before the timeout`);
}

describe("listener timeouts, cleartext", () => {
  let listener: Listener;
  let port = 0;
  before(async () => ({ listener, port } = await start()));
  after(() => {
    destroyRawConnections();
    return listener.close({ timeoutMs: 500 });
  });

  it("closes a connection that never sends a byte", async () => {
    const conn = await connectRaw(port);
    await assertClosedAfter(conn.closed, limits.headersTimeoutMs);
  });

  it("answers 408 and closes when request headers stop half way", async () => {
    const conn = await connectRaw(port);
    conn.socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
    await assertClosedAfter(conn.closed, limits.headersTimeoutMs);
    assert.match(conn.received(), /^HTTP\/1\.1 408 /);
  });

  it("does the same for the next request on a kept-alive connection", async () => {
    const conn = await connectRaw(port);
    conn.socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await new Promise((resolve) => conn.socket.once("data", resolve));
    conn.socket.write("GET / HTTP/1.1\r\nHost: ");
    const ms = await within(conn.closed, 3000);
    assert.notEqual(ms, "timed out");
    assert.match(conn.received(), /^HTTP\/1\.1 200 [\s\S]*HTTP\/1\.1 408 /);
  });

  it("closes an idle kept-alive connection", async () => {
    const conn = await connectRaw(port);
    conn.socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await assertClosedAfter(conn.closed, limits.keepAliveTimeoutMs);
    assert.match(conn.received(), /^HTTP\/1\.1 200 /);
  });

  it("closes an h2c session that never sends a request", async () => {
    const conn = await connectRaw(port);
    conn.socket.write(h2Hello);
    await assertClosedAfter(conn.closed, limits.headersTimeoutMs);
  });

  it("closes an h2c session whose header block never ends", async () => {
    const conn = await connectRaw(port);
    conn.socket.write(Buffer.concat([h2Hello, h2UnfinishedHeaders]));
    await assertClosedAfter(conn.closed, limits.headersTimeoutMs);
  });

  it("closes an h2c session idle after its last request", async () => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    session.on("error", () => {});
    const closed = new Promise<number>((resolve) => {
      const started = Date.now();
      session.once("close", () => resolve(Date.now() - started));
    });
    await new Promise<void>((resolve) =>
      session.request({ ":path": "/" }).resume().on("end", resolve),
    );
    await assertClosedAfter(closed, limits.keepAliveTimeoutMs);
  });

  it("cuts an HTTP/1.1 body that stalls, and the handler's read fails", async () => {
    const failed = failedReads;
    const conn = await connectRaw(port);
    conn.socket.write(
      "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n0123456789",
    );
    await assertClosedAfter(conn.closed, limits.requestIdleTimeoutMs);
    assert.equal(conn.received(), "");
    await new Promise((resolve) => setImmediate(resolve));
    assert.ok(failedReads > failed, "the handler's read did not fail");
  });

  it("cancels an HTTP/2 stream whose body stalls, and the handler's read fails", async () => {
    const failed = failedReads;
    const session = http2.connect(`http://127.0.0.1:${port}`);
    const stream = session.request({ ":method": "POST", ":path": "/", "content-length": "100" });
    stream.write("0123456789");
    const started = Date.now();
    const code = await within(
      new Promise<number>((r) => stream.once("close", () => r(stream.rstCode ?? -1))),
      3000,
    );
    assert.equal(code, http2.constants.NGHTTP2_CANCEL);
    assert.ok(Date.now() - started >= limits.requestIdleTimeoutMs * 0.8);
    assert.ok(failedReads > failed, "the handler's read did not fail");
    session.destroy();
  });

  it("does not cut a slow body that keeps moving, over HTTP/1.1 or HTTP/2", async () => {
    const chunks = 12;
    const slowly = async (write: (chunk: Buffer) => void) => {
      for (let i = 0; i < chunks; i++) {
        write(Buffer.alloc(1024, "a"));
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    const h1 = new Promise<string>((resolve, reject) => {
      const req = http.request({ host: "127.0.0.1", port, method: "POST", path: "/" }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve(`${res.statusCode} ${body}`));
      });
      req.on("error", reject);
      void slowly((chunk) => req.write(chunk)).then(() => req.end());
    });
    const session = http2.connect(`http://127.0.0.1:${port}`);
    const stream = session.request({ ":method": "POST", ":path": "/" });
    const h2 = new Promise<string>((resolve, reject) => {
      let body = "";
      let status = 0;
      stream.on("response", (headers) => (status = Number(headers[":status"])));
      stream.on("data", (c) => (body += c));
      stream.on("end", () => resolve(`${status} ${body}`));
      stream.on("error", reject);
    });
    void slowly((chunk) => stream.write(chunk)).then(() => stream.end());
    assert.deepEqual(await Promise.all([h1, h2]), ["200 12288", "200 12288"]);
    session.close();
  });
});

describe("listener timeouts, TLS", () => {
  let dir = "";
  let tls: TlsOptions;
  let listener: Listener;
  let port = 0;
  before(async () => {
    const certificate = await makeCertificate();
    dir = certificate.dir;
    tls = { key: certificate.key, cert: certificate.cert };
    ({ listener, port } = await start({ tls }));
  });
  after(async () => {
    destroyRawConnections();
    await listener.close({ timeoutMs: 500 });
    await rm(dir, { recursive: true, force: true });
  });

  it("closes a connection that never starts the handshake", async () => {
    const conn = await connectRaw(port);
    await assertClosedAfter(conn.closed, limits.headersTimeoutMs);
  });

  it("answers 408 and closes when HTTP/1.1 headers stop half way", async () => {
    const conn = await connectRaw(port, { ca: tls.cert, alpn: ["http/1.1"] });
    conn.socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ");
    await assertClosedAfter(conn.closed, limits.headersTimeoutMs);
    assert.match(conn.received(), /^HTTP\/1\.1 408 /);
  });

  it("closes an idle kept-alive HTTP/1.1 connection", async () => {
    const conn = await connectRaw(port, { ca: tls.cert, alpn: ["http/1.1"] });
    conn.socket.write("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
    await assertClosedAfter(conn.closed, limits.keepAliveTimeoutMs);
    assert.match(conn.received(), /^HTTP\/1\.1 200 /);
  });

  it("closes an h2 session that never sends a request, or never ends a header block", async () => {
    const silent = await connectRaw(port, { ca: tls.cert, alpn: ["h2"] });
    silent.socket.write(h2Hello);
    const unfinished = await connectRaw(port, { ca: tls.cert, alpn: ["h2"] });
    unfinished.socket.write(Buffer.concat([h2Hello, h2UnfinishedHeaders]));
    await assertClosedAfter(silent.closed, limits.headersTimeoutMs);
    await assertClosedAfter(unfinished.closed, limits.headersTimeoutMs);
  });
});
