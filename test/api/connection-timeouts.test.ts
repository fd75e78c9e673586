import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { after, before, describe, it } from "node:test";
import {
  connectRaw,
  destroyRawConnections,
  h2Hello,
  h2UnfinishedHeaders,
  within,
} from "../support/raw-connections.ts";
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
