import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import http2 from "node:http2";
import { request as httpsRequest } from "node:https";
import { after, before, describe, it } from "node:test";
import { basicToken, buildWheel, twineFields } from "../support/python-packages.ts";
import {
  connectRaw,
  destroyRawConnections,
  h2Hello,
  h2UnfinishedHeaders,
  within,
} from "../support/raw-connections.ts";
import { type RegistryTestServer, startRegistryServer } from "../support/registry-server.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { makeCertificate, type TestCertificate } from "../support/tls.ts";

const timeout = 300;
const partialRequest = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";

async function assertClosedInTime(closed: Promise<number>) {
  const ms = await within(closed, timeout + 2000);
  assert.notEqual(ms, "timed out", "the server kept the connection open");
  assert.ok((ms as number) >= timeout * 0.8, `closed after ${ms} ms, before the timeout`);
}

/**
 * `--headers-timeout` on both listeners of `lading serve`: connections that never finish their
 * request headers are closed, whatever the protocol, instead of piling up until descriptors run
 * out.
 */
for (const tls of [false, true]) {
  describe(`unfinished requests are timed out [${tls ? "TLS" : "cleartext"}]`, () => {
    let server: TestServer;
    let certificate: TestCertificate | undefined;
    const ports = () => ({
      api: Number(new URL(server.apiUrl).port),
      registry: Number(new URL(server.lading.registryUrl).port),
    });
    before(async () => {
      certificate = tls ? await makeCertificate() : undefined;
      server = await startTestServer("sqlite", "acme", {
        headersTimeout: `${timeout}ms`,
        tlsCert: certificate?.certFile,
        tlsKey: certificate?.keyFile,
      });
    });
    after(async () => {
      destroyRawConnections();
      await server.close();
      if (certificate) await rm(certificate.dir, { recursive: true, force: true });
    });

    for (const listener of ["api", "registry"] as const) {
      it(`on the ${listener} listener: HTTP/1.1 headers that stop half way get 408`, async () => {
        const conn = await connectRaw(ports()[listener], {
          ca: certificate?.cert,
          alpn: ["http/1.1"],
        });
        conn.socket.write(partialRequest);
        await assertClosedInTime(conn.closed);
        assert.match(conn.received(), /^HTTP\/1\.1 408 /);
      });

      it(`on the ${listener} listener: HTTP/2 sessions that never finish a request`, async () => {
        const options = { ca: certificate?.cert, alpn: ["h2"] };
        const silent = await connectRaw(ports()[listener], options);
        silent.socket.write(h2Hello);
        const unfinished = await connectRaw(ports()[listener], options);
        unfinished.socket.write(Buffer.concat([h2Hello, h2UnfinishedHeaders]));
        await assertClosedInTime(silent.closed);
        await assertClosedInTime(unfinished.closed);
      });
    }
  });
}

/** The body limits, short so that the suite runs in seconds. */
const bodyTimeoutMs = 1500;
const rateWindowMs = 700;

/**
 * Finding 4: anonymous bodies that drip (one byte every few seconds) held their connections for
 * as long as they kept dripping, and with `--max-connections 50` legitimate requests were
 * refused. Every body but an authenticated upload must now arrive whole within
 * `--request-body-timeout` and at `--min-body-rate`, on both listeners, over HTTP/1.1, h2c and
 * TLS.
 */
for (const tls of [false, true]) {
  describe(`dripped bodies are cut [${tls ? "TLS" : "cleartext"}]`, () => {
    let r: RegistryTestServer;
    let certificate: TestCertificate | undefined;
    const api = () => Number(new URL(r.server.apiUrl).port);
    const registry = () => Number(new URL(r.registryUrl).port);
    const raw = (port: number) => connectRaw(port, { ca: certificate?.cert, alpn: ["http/1.1"] });
    before(async () => {
      certificate = tls ? await makeCertificate() : undefined;
      r = await startRegistryServer(
        { store: "sqlite", blobs: "filesystem" },
        {
          requestBodyTimeout: `${bodyTimeoutMs}ms`,
          bodyRateWindow: `${rateWindowMs}ms`,
          maxConnections: "50",
          tlsCert: certificate?.certFile,
          tlsKey: certificate?.keyFile,
        },
      );
    });
    after(async () => {
      destroyRawConnections();
      await r?.close();
      if (certificate) await rm(certificate.dir, { recursive: true, force: true });
    });

    /** One request on a fresh connection (over TLS with the test CA): its status and headers. */
    function ask(url: string, method: string, headers: Record<string, string> = {}) {
      const send = url.startsWith("https:") ? httpsRequest : httpRequest;
      return new Promise<{ status: number; headers: Record<string, unknown> }>(
        (resolve, reject) => {
          const req = send(url, {
            method,
            headers,
            ca: certificate?.cert,
            agent: false,
            timeout: 500,
          });
          req.on("error", reject);
          req.on("timeout", () => req.destroy(new Error("no answer")));
          req.on("response", (res) => {
            res.resume();
            res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers }));
          });
          req.end();
        },
      );
    }

    /** Opens `path` with a body that never ends, sending `chunk` every `everyMs`. */
    async function drip(port: number, head: string, chunk: string, everyMs: number) {
      const conn = await raw(port);
      conn.socket.write(`${head}\r\nHost: x\r\nContent-Length: 900000\r\n\r\n`);
      const timer = setInterval(() => conn.socket.write(chunk), everyMs);
      conn.closed.finally(() => clearInterval(timer));
      return conn;
    }

    const anonymous = [
      ["api", "POST /sts/exchange HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded"],
      ["api", "POST /lading.ping.v2.PingService/Ping HTTP/1.1\r\nContent-Type: application/json"],
      ["api", "POST /auth/v2/token HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded"],
      ["registry", "PATCH /v2/acme/app/blobs/uploads/none HTTP/1.1"],
    ] as const;

    it("cuts anonymous bodies slower than the minimum rate within a window or two", async () => {
      const port = { api: api(), registry: registry() };
      const conns = await Promise.all(anonymous.map(([l, head]) => drip(port[l], head, "a", 200)));
      for (const conn of conns) {
        const ms = await within(conn.closed, rateWindowMs + 3000);
        assert.notEqual(ms, "timed out", "a body of 5 bytes a second was kept");
        assert.ok((ms as number) >= rateWindowMs * 0.8, `cut after ${ms} ms`);
      }
    });

    it("cuts anonymous bodies that keep up the rate but never end, at the deadline", async () => {
      const port = { api: api(), registry: registry() };
      // 300 bytes every 100 ms: 3 KB/s, above the rate, for a body of 900 KB.
      const chunk = "a".repeat(300);
      const conns = await Promise.all(
        anonymous.map(([l, head]) => drip(port[l], head, chunk, 100)),
      );
      for (const conn of conns) {
        const ms = await within(conn.closed, bodyTimeoutMs + 3000);
        assert.notEqual(ms, "timed out", "a body that never ends was kept");
        assert.ok((ms as number) >= bodyTimeoutMs * 0.8, `cut after ${ms} ms`);
      }
    });

    it("cancels an h2 stream whose body drips, and the session goes on", async () => {
      const session = http2.connect(r.server.apiUrl, { ca: certificate?.cert });
      session.on("error", () => {});
      const stream = session.request({
        ":method": "POST",
        ":path": "/lading.ping.v2.PingService/Ping",
        "content-type": "application/json",
      });
      stream.on("error", () => {});
      const timer = setInterval(() => stream.write("a"), 200);
      const code = await within(
        new Promise((resolve) => stream.once("close", () => resolve(stream.rstCode))),
        bodyTimeoutMs + 3000,
      );
      clearInterval(timer);
      assert.equal(code, http2.constants.NGHTTP2_CANCEL);
      const ping = session.request({ ":path": "/ping/v2/ping" });
      const status = await new Promise((resolve) =>
        ping.once("response", (h) => resolve(h[":status"])),
      );
      assert.equal(status, 200);
      session.destroy();
    });

    /** Sends `head` and `body` on a raw connection, 100 bytes every 100 ms; resolves with the answer. */
    async function slowly(port: number, head: string, body: Buffer) {
      const conn = await raw(port);
      conn.socket.write(`${head}\r\nHost: x\r\nContent-Length: ${body.length}\r\n\r\n`);
      // 1000 B/s, under the 1 KiB/s minimum; past the deadline for bodies over 1.5 KB.
      for (let at = 0; at < body.length; at += 100) {
        conn.socket.write(body.subarray(at, at + 100));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const answered = await within(
        new Promise<void>((resolve) => {
          const check = () =>
            /\r\n\r\n/.test(conn.received()) ? resolve() : setTimeout(check, 20);
          check();
        }),
        3000,
      );
      assert.notEqual(answered, "timed out", `no answer: ${conn.received()}`);
      return conn.received();
    }

    it("lets an authenticated blob upload drip past the deadline and finish", async () => {
      const started = await ask(`${r.registryUrl}/v2/acme/slow/blobs/uploads/`, "POST", {
        authorization: `Bearer ${r.ownerToken}`,
      });
      assert.equal(started.status, 202);
      const location = String(started.headers.location);
      const head = `PATCH ${location} HTTP/1.1\r\nAuthorization: Bearer ${r.ownerToken}`;
      const answer = await slowly(registry(), head, Buffer.alloc(2400, "b"));
      assert.match(answer, /^HTTP\/1\.1 202 /);
      assert.match(answer, /range: 0-2399/i);
    });

    it("lets an authenticated library upload drip past the deadline and publish", async () => {
      const wheel = buildWheel({ name: "slow-one", version: "1.0" });
      const form = new FormData();
      for (const [key, value] of Object.entries(twineFields(wheel, "slow-one", "1.0"))) {
        if (value !== undefined) form.append(key, value);
      }
      form.append("content", new Blob([wheel.bytes]), wheel.filename);
      const encoded = new Response(form);
      const body = Buffer.from(await encoded.arrayBuffer());
      assert.ok(body.length > 2000, `${body.length} bytes take more than the deadline`);
      const head =
        `POST /python/acme/ HTTP/1.1\r\nAuthorization: ${basicToken(r.ownerToken)}\r\n` +
        `Content-Type: ${encoded.headers.get("content-type")}`;
      const answer = await slowly(registry(), head, body);
      assert.match(answer, /^HTTP\/1\.1 200 /);
    });

    it("with --max-connections 50, 55 drippers no longer lock legitimate callers out", async () => {
      // One byte every 300 ms to /sts/exchange, as in the report (there, one every 10 s).
      const head = "POST /sts/exchange HTTP/1.1\r\nContent-Type: application/x-www-form-urlencoded";
      const opened = await Promise.allSettled(
        Array.from({ length: 55 }, () => drip(api(), head, "a", 300)),
      );
      const drippers = opened.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
      assert.ok(drippers.length >= 45, `only ${drippers.length} drippers got in`);
      const started = Date.now();
      let answered = false;
      while (!answered && Date.now() - started < bodyTimeoutMs + 5000) {
        const res = await ask(`${r.server.apiUrl}/healthz`, "GET").catch(() => undefined);
        answered = res?.status === 200;
        if (!answered) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.ok(answered, "/healthz never answered while the drippers held on");
      const closed = await Promise.all(drippers.map((c) => within(c.closed, 3000)));
      assert.ok(!closed.includes("timed out"), "a dripper was kept");
    });
  });
}
