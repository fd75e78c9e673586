import assert from "node:assert/strict";
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { UniversalHandler, UniversalServerResponse } from "@connectrpc/connect/protocol";
import { GroupsService } from "../../gen/lading/iam/v2/groups_pb.js";
import { createNodeAdapter } from "./node-adapter.ts";

const logged: unknown[] = [];
const log = { error: (o: unknown) => logged.push(o) } as never;

/** A handler at `path` that answers with `respond`. */
function handlerAt(path: string, respond: () => Promise<UniversalServerResponse>) {
  return Object.assign(respond, {
    protocolNames: ["connect"],
    service: GroupsService,
    method: GroupsService.method.listGroups,
    requestPath: path,
    allowedMethods: ["POST"],
    supportedContentType: () => true,
  }) as unknown as UniversalHandler;
}

const handlers = [
  handlerAt("/rejects", () => Promise.reject(new Error("a rewrite that threw"))),
  handlerAt("/breaks-mid-answer", async () => ({
    status: 200,
    header: new Headers({ "content-type": "application/connect+json" }),
    body: (async function* () {
      yield new Uint8Array([0, 0, 0, 0, 2, 123, 125]);
      throw new Error("a body that broke");
    })(),
  })),
  handlerAt("/fine", async () => ({
    status: 200,
    header: new Headers({ "content-type": "application/json" }),
    body: (async function* () {
      yield new TextEncoder().encode("{}");
    })(),
  })),
];

describe("the RPC adapter ends every exchange", () => {
  const adapter = createNodeAdapter(handlers, log);
  const h1 = http.createServer(adapter);
  const h2 = http2.createServer(adapter);
  let h1Url = "";
  let h2Url = "";
  before(async () => {
    await new Promise<void>((resolve) => h1.listen(0, "127.0.0.1", resolve));
    await new Promise<void>((resolve) => h2.listen(0, "127.0.0.1", resolve));
    h1Url = `http://127.0.0.1:${(h1.address() as AddressInfo).port}`;
    h2Url = `http://127.0.0.1:${(h2.address() as AddressInfo).port}`;
  });
  after(() => {
    h1.closeAllConnections();
    h1.close();
    h2.close();
  });

  const post = (path: string, type: string) =>
    fetch(`${h1Url}${path}`, {
      method: "POST",
      headers: { "content-type": type, "x-request-id": "r-1" },
      body: "{}",
      signal: AbortSignal.timeout(3000),
    });

  it("answers a failed Connect handler with an INTERNAL error body naming the request id", async () => {
    const before = logged.length;
    const res = await post("/rejects", "application/json");
    assert.equal(res.status, 500);
    assert.deepEqual(await res.json(), {
      code: "internal",
      message: "internal error (request id r-1)",
    });
    assert.equal(logged.length, before + 1, "logged once");
  });

  it("answers a failed gRPC-Web handler with grpc-status 13 in the headers", async () => {
    const res = await post("/rejects", "application/grpc-web+proto");
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("grpc-status"), "13");
    assert.equal(res.headers.get("content-type"), "application/grpc-web+proto");
  });

  it("answers a failed gRPC handler over HTTP/2 with grpc-status 13", async () => {
    const session = http2.connect(h2Url);
    const stream = session.request({
      ":method": "POST",
      ":path": "/rejects",
      "content-type": "application/grpc",
    });
    stream.end();
    const headers = await new Promise<http2.IncomingHttpHeaders>((resolve) =>
      stream.once("response", resolve),
    );
    assert.equal(headers["grpc-status"], "13");
    session.close();
  });

  it("cuts an answer that breaks once under way, over HTTP/1.1 and HTTP/2", async () => {
    await assert.rejects(async () =>
      (await post("/breaks-mid-answer", "application/connect+json")).arrayBuffer(),
    );
    const session = http2.connect(h2Url);
    const stream = session.request({ ":method": "POST", ":path": "/breaks-mid-answer" });
    stream.end();
    stream.resume();
    stream.on("error", () => {});
    await new Promise((resolve) => stream.once("close", resolve));
    assert.equal(stream.rstCode, http2.constants.NGHTTP2_INTERNAL_ERROR);
    session.close();
  });

  it("serves a handler that works, and 404 for a path it does not serve", async () => {
    assert.equal((await post("/fine", "application/json")).status, 200);
    assert.equal((await post("/nothing", "application/json")).status, 404);
  });
});
