import assert from "node:assert/strict";
import { Writable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { pino } from "pino";
import type { Principal } from "../auth/index.ts";
import { createGrpcDoor } from "../doors/grpc/index.ts";
import { createRestDoor } from "../doors/rest/index.ts";
import { permissionDenied, unauthenticated } from "../errors/index.ts";
import { PingService } from "../gen/lading/ping/v2/ping_pb.js";
import { bindService, type RawRoute } from "../rpc/index.ts";
import { createApiHandler } from "./api-handler.ts";
import { createListener, type Listener } from "./listener.ts";

const seenRequestIds: string[] = [];
const services = [
  bindService(
    PingService,
    {
      ping: async (_req, call) => {
        seenRequestIds.push(call.requestId);
        return { response: "pong" };
      },
    },
    new Set(["lading.ping.v2.PingService/Ping"]),
  ),
];

async function authenticate(authorization: string | undefined): Promise<Principal> {
  throw unauthenticated("INVALID_TOKEN", `no token accepted, not even ${authorization}`);
}

const routes: RawRoute[] = [
  {
    method: "GET",
    path: "/raw",
    async handle(_req, res, ctx) {
      res.setHeader("content-type", "text/plain");
      res.end(`raw ${ctx.requestId}`);
    },
  },
  {
    method: "POST",
    path: "/raw/denied",
    async handle() {
      throw permissionDenied("sts", "not for you");
    },
  },
  {
    method: "GET",
    path: "/healthz",
    async handle(_req, res) {
      res.end("shadowed");
    },
  },
];

describe("API handler", () => {
  let listener: Listener;
  let base = "";
  let ready = true;
  const lines: Record<string, unknown>[] = [];
  before(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const line of String(chunk).trim().split("\n")) lines.push(JSON.parse(line));
        done();
      },
    });
    const log = pino({ level: "info" }, sink);
    const handler = createApiHandler({
      rest: createRestDoor({ services, authenticate }),
      grpc: createGrpcDoor({ services, authenticate, log }),
      routes: routes.slice(0, 2),
      log,
      isReady: () => ready,
    });
    listener = createListener({ handler });
    const { port } = await listener.listen("127.0.0.1", 0);
    base = `http://127.0.0.1:${port}`;
  });
  after(() => listener.close({ timeoutMs: 1000 }));

  it("echoes a valid x-request-id and replaces an invalid one", async () => {
    const kept = await fetch(`${base}/healthz`, { headers: { "x-request-id": "abc.DEF_1-2" } });
    assert.equal(kept.headers.get("x-request-id"), "abc.DEF_1-2");
    for (const bad of ["has space", "x".repeat(129), "semi;colon"]) {
      const res = await fetch(`${base}/healthz`, { headers: { "x-request-id": bad } });
      const id = res.headers.get("x-request-id") ?? "";
      assert.notEqual(id, bad);
      assert.match(id, /^[A-Za-z0-9._-]{1,128}$/);
    }
  });

  it("answers the probes", async () => {
    const health = await fetch(`${base}/healthz`);
    assert.deepEqual([health.status, await health.json()], [200, { status: "ok" }]);
    const readyRes = await fetch(`${base}/readyz`);
    assert.deepEqual([readyRes.status, await readyRes.json()], [200, { status: "ready" }]);
    ready = false;
    const notReady = await fetch(`${base}/readyz`);
    assert.deepEqual([notReady.status, await notReady.json()], [503, { status: "not ready" }]);
    ready = true;
  });

  it("serves raw routes first and renders their LadingErrors", async () => {
    const res = await fetch(`${base}/raw?x=1`, { headers: { "x-request-id": "raw-1" } });
    assert.equal(await res.text(), "raw raw-1");
    const denied = await fetch(`${base}/raw/denied`, { method: "POST" });
    assert.equal(denied.status, 403);
    const body = (await denied.json()) as { code: number; details: { "@type": string }[] };
    assert.equal(body.code, 7);
    assert.equal(body.details[0]["@type"], "type.googleapis.com/google.rpc.ErrorInfo");
  });

  it("sends REST paths to the REST door", async () => {
    const res = await fetch(`${base}/ping/v2/ping`);
    assert.deepEqual(await res.json(), { response: "pong" });
  });

  it("sends gRPC, Connect and RPC-path requests to the gRPC door", async () => {
    for (const transport of [
      createGrpcTransport({ baseUrl: base }),
      createConnectTransport({ baseUrl: base, httpVersion: "1.1" }),
      createConnectTransport({ baseUrl: base, httpVersion: "2" }),
    ]) {
      assert.equal((await createClient(PingService, transport).ping({})).response, "pong");
    }
    const json = await fetch(`${base}/lading.ping.v2.PingService/Ping`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    assert.deepEqual(await json.json(), { response: "pong" });
  });

  it("hands the gRPC door the request id it echoes", async () => {
    const client = createClient(PingService, createGrpcTransport({ baseUrl: base }));
    let echoed = "";
    await client.ping(
      {},
      {
        headers: { "x-request-id": "bad id!" },
        onHeader: (h) => (echoed = h.get("x-request-id") ?? ""),
      },
    );
    assert.match(echoed, /^[A-Za-z0-9._-]{1,128}$/);
    assert.equal(seenRequestIds.at(-1), echoed);
    await new Promise((r) => setTimeout(r, 20));
    const line = lines.find((l) => l.requestId === echoed);
    assert.equal(line?.door, "grpc");
  });

  it("answers unknown paths with a google.rpc.Status 404", async () => {
    for (const path of ["/nothing", "/iam/v2/nothing", "/lading.ping.v2.PingService/Nope"]) {
      const res = await fetch(`${base}${path}`);
      assert.equal(res.status, 404, path);
      const body = (await res.json()) as { code: number; message: string };
      assert.equal(body.code, 5);
    }
  });

  it("answers gRPC content types on paths the gRPC door does not serve like any other path", async () => {
    for (const type of ["application/grpc", "application/proto", "application/connect+json"]) {
      for (const path of ["/nothing", "/lading.ping.v2.PingService/Nope"]) {
        const res = await fetch(`${base}${path}`, {
          method: "POST",
          headers: { "content-type": type },
          body: "{}",
        });
        assert.equal(res.status, 404, `${type} ${path}`);
        assert.equal(((await res.json()) as { code: number }).code, 5, `${type} ${path}`);
      }
    }
    const rest = await fetch(`${base}/ping/v2/ping`, {
      headers: { "content-type": "application/proto" },
    });
    assert.deepEqual(await rest.json(), { response: "pong" });
  });

  it("exposes metrics in the prometheus text format", async () => {
    await fetch(`${base}/ping/v2/ping`);
    const res = await fetch(`${base}/metrics`);
    assert.match(res.headers.get("content-type") ?? "", /^text\/plain/);
    const text = await res.text();
    assert.match(text, /lading_http_requests_total\{door="rest",method="GET",code="200"\} \d+/);
    assert.match(text, /lading_http_request_duration_seconds_bucket\{le="0.005",door="rest"\}/);
    assert.match(text, /process_cpu_user_seconds_total/);
  });

  it("writes one access-log line per request, without credentials or query strings", async () => {
    lines.length = 0;
    await fetch(`${base}/ping/v2/ping?secret=1`, {
      headers: { "x-request-id": "log-1", authorization: "Bearer top-secret-token" },
    });
    await new Promise((r) => setTimeout(r, 20));
    const access = lines.filter((l) => l.requestId === "log-1");
    assert.equal(access.length, 1);
    const { requestId, method, path, status, door } = access[0];
    assert.deepEqual(
      { requestId, method, path, status, door },
      {
        requestId: "log-1",
        method: "GET",
        path: "/ping/v2/ping",
        // Credentials sent to a method open to anonymous callers are still checked.
        status: 401,
        door: "rest",
      },
    );
    assert.equal(typeof access[0].durationMs, "number");
    assert.doesNotMatch(JSON.stringify(lines), /top-secret-token|secret=1/);
  });
});
