import assert from "node:assert/strict";
import http2, { type Http2ServerResponse } from "node:http2";
import { after, before, describe, it } from "node:test";
import { connectRaw, destroyRawConnections, within } from "../../test/support/raw-connections.ts";
import type { HttpRequest, HttpResponse } from "../rpc/index.ts";
import { createListener, type Listener } from "./listener.ts";

/** Refuses every request at once, without reading its body; `/close` also closes the connection. */
function refuse(req: HttpRequest, res: HttpResponse): void {
  res.statusCode = 413;
  if (req.url === "/close" && req.httpVersionMajor === 1) res.setHeader("connection", "close");
  if (req.url === "/trailers") (res as Http2ServerResponse).addTrailers({ "grpc-status": "16" });
  res.end("refused");
}

describe("answers sent before the request body has arrived", () => {
  let listener: Listener;
  let port = 0;
  before(async () => {
    listener = createListener({ handler: refuse });
    ({ port } = await listener.listen("127.0.0.1", 0));
  });
  after(() => {
    destroyRawConnections();
    return listener.close({ timeoutMs: 500 });
  });

  for (const path of ["/close", "/keep"]) {
    it(`lets an HTTP/1.1 client finish sending and read the answer (${path})`, async () => {
      const conn = await connectRaw(port, { allowHalfOpen: true });
      let failure = "";
      conn.socket.on("error", (error: NodeJS.ErrnoException) => (failure = error.code ?? ""));
      const mib = Buffer.alloc(1024 * 1024, "a");
      conn.socket.write(
        `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: ${3 * mib.length}\r\n\r\n`,
      );
      conn.socket.write(mib);
      // The answer comes before the client has sent the rest (a loaded machine may take a while).
      await within(new Promise((resolve) => conn.socket.once("data", resolve)), 3000);
      assert.match(conn.received(), /^HTTP\/1\.1 413 /);
      await new Promise<void>((resolve) => conn.socket.write(mib, () => resolve()));
      await new Promise<void>((resolve) => conn.socket.write(mib, () => resolve()));
      if (path === "/close") {
        conn.socket.end();
        assert.notEqual(await within(conn.closed, 2000), "timed out");
      } else {
        conn.socket.write("GET /next HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        await new Promise((resolve) => setTimeout(resolve, 100));
        assert.equal(conn.received().match(/HTTP\/1\.1 413 /g)?.length, 2);
      }
      assert.equal(failure, "");
    });
  }

  it("ends an HTTP/2 stream with NO_ERROR once the answer, trailers included, has left", async () => {
    const session = http2.connect(`http://127.0.0.1:${port}`);
    const stream = session.request({ ":method": "POST", ":path": "/trailers" });
    stream.write(Buffer.alloc(256 * 1024));
    let trailers: http2.IncomingHttpHeaders = {};
    let body = "";
    stream.on("trailers", (t) => (trailers = t));
    stream.on("data", (c) => (body += c));
    stream.on("error", () => {});
    const code = await within(
      new Promise((r) => stream.once("close", () => r(stream.rstCode))),
      2000,
    );
    assert.equal(code, http2.constants.NGHTTP2_NO_ERROR);
    assert.equal(body, "refused");
    assert.equal(trailers["grpc-status"], "16");
    session.destroy();
  });
});
