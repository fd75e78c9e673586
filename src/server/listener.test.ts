import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { rm } from "node:fs/promises";
import http from "node:http";
import http2 from "node:http2";
import https from "node:https";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { makeCertificate } from "../../test/support/tls.ts";
import type { HttpRequest, HttpResponse } from "../rpc/index.ts";
import { createListener, type TlsOptions } from "./listener.ts";

const _run = promisify(execFile);

/** How many `/slow` requests the handler has begun. */
let slowStarted = 0;

/** Answers `<http version> <path>`; `/slow` waits 300 ms first. */
function handler(req: HttpRequest, res: HttpResponse): void {
  const answer = () => res.end(`${req.httpVersion} ${req.url}`);
  if (req.url === "/slow") {
    slowStarted++;
    setTimeout(answer, 300);
  } else answer();
}

/** Resolves once `count` more `/slow` requests than `from` have reached the handler. */
async function slowRequestsIn(from: number, count: number): Promise<void> {
  while (slowStarted < from + count) await new Promise((r) => setTimeout(r, 5));
}

function h1Get(port: number, path: string, agent?: http.Agent): Promise<string> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path, agent }, (res) => {
        let body = "";
        res.on("data", (c) => (body += c));
        res.on("end", () => resolve(body));
      })
      .on("error", reject);
  });
}

function h2Get(session: http2.ClientHttp2Session, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const stream = session.request({ ":path": path });
    let body = "";
    stream.on("data", (c) => (body += c));
    stream.on("end", () => resolve(body));
    stream.on("error", reject);
  });
}

describe("listener, cleartext", () => {
  it("serves HTTP/1.1 and h2c with prior knowledge on one port", async () => {
    const listener = createListener({ handler });
    const { port } = await listener.listen("127.0.0.1", 0);
    assert.ok(port > 0);
    assert.equal(await h1Get(port, "/one"), "1.1 /one");
    assert.equal(await (await fetch(`http://127.0.0.1:${port}/fetch`)).text(), "1.1 /fetch");
    const session = http2.connect(`http://127.0.0.1:${port}`);
    assert.equal(await h2Get(session, "/two"), "2.0 /two");
    assert.equal(await h2Get(session, "/three"), "2.0 /three");
    session.close();
    await listener.close({ timeoutMs: 1000 });
  });

  it("lets in-flight requests finish, refuses new connections, then resolves", async () => {
    const listener = createListener({ handler });
    const { port } = await listener.listen("127.0.0.1", 0);
    const agent = new http.Agent({ keepAlive: true });
    assert.equal(await h1Get(port, "/warm", agent), "1.1 /warm");
    const session = http2.connect(`http://127.0.0.1:${port}`);
    await h2Get(session, "/warm");
    const before = slowStarted;
    const slowH1 = h1Get(port, "/slow");
    const slowH2 = h2Get(session, "/slow");
    await slowRequestsIn(before, 2);
    const started = Date.now();
    const closed = listener.close({ timeoutMs: 5000 });
    await new Promise((r) => setTimeout(r, 20));
    await assert.rejects(h1Get(port, "/late"), /ECONNREFUSED/);
    assert.equal(await slowH1, "1.1 /slow");
    assert.equal(await slowH2, "2.0 /slow");
    await closed;
    assert.ok(Date.now() - started < 2000, "idle keep-alive sockets must not hold the close");
    agent.destroy();
    session.destroy();
  });

  it("destroys what remains after the timeout", async () => {
    const hang = (_req: HttpRequest, _res: HttpResponse) => {};
    const listener = createListener({ handler: hang });
    const { port } = await listener.listen("127.0.0.1", 0);
    const pending = h1Get(port, "/forever").catch((e: Error) => e.message);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await listener.close({ timeoutMs: 200 });
    assert.ok(Date.now() - started >= 150);
    assert.match(await pending, /socket hang up|ECONNRESET/);
  });

  it("closes a connection that never sent a byte", async () => {
    const listener = createListener({ handler });
    const { port } = await listener.listen("127.0.0.1", 0);
    const net = await import("node:net");
    const socket = net.connect(port, "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    const ended = new Promise((r) => socket.once("close", r));
    await listener.close({ timeoutMs: 5000 });
    await ended;
  });
});

describe("listener, TLS", () => {
  let dir = "";
  let tls: TlsOptions;
  before(async () => {
    const certificate = await makeCertificate();
    dir = certificate.dir;
    tls = { key: certificate.key, cert: certificate.cert };
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("serves HTTP/1.1 and h2 by ALPN", async () => {
    const listener = createListener({ handler, tls });
    const { port } = await listener.listen("127.0.0.1", 0);
    const h1 = await new Promise<string>((resolve, reject) => {
      https
        .get(
          {
            host: "127.0.0.1",
            port,
            path: "/tls1",
            agent: new https.Agent({ ca: tls.cert, ALPNProtocols: ["http/1.1"] }),
          },
          (res) => {
            let body = "";
            res.on("data", (c) => (body += c));
            res.on("end", () => resolve(body));
          },
        )
        .on("error", reject);
    });
    assert.equal(h1, "1.1 /tls1");
    const session = http2.connect(`https://127.0.0.1:${port}`, { ca: tls.cert });
    assert.equal(await h2Get(session, "/tls2"), "2.0 /tls2");
    session.close();
    await listener.close({ timeoutMs: 1000 });
  });

  it("shuts down gracefully over TLS too", async () => {
    const listener = createListener({ handler, tls });
    const { port } = await listener.listen("127.0.0.1", 0);
    const agent = new https.Agent({ keepAlive: true, ca: tls.cert });
    const get = (path: string) =>
      new Promise<string>((resolve, reject) => {
        https
          .get({ host: "127.0.0.1", port, path, agent }, (res) => {
            let body = "";
            res.on("data", (c) => (body += c));
            res.on("end", () => resolve(body));
          })
          .on("error", reject);
      });
    assert.equal(await get("/idle"), "1.1 /idle");
    const session = http2.connect(`https://127.0.0.1:${port}`, { ca: tls.cert });
    const before = slowStarted;
    const slowH2 = h2Get(session, "/slow");
    const slowH1 = get("/slow");
    await slowRequestsIn(before, 2);
    const started = Date.now();
    const closed = listener.close({ timeoutMs: 5000 });
    assert.equal(await slowH2, "2.0 /slow");
    assert.equal(await slowH1, "1.1 /slow");
    await closed;
    assert.ok(Date.now() - started < 2000);
    agent.destroy();
    session.destroy();
  });
});
