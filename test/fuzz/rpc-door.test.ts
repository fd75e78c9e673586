import { after, before, describe, it } from "node:test";
import fc from "fast-check";
import { startTestServer, type TestServer } from "../support/server.ts";
import { checkConnectAnswer, checkGrpcAnswer } from "./support/answers.ts";
import { fuzz, fuzzTestTimeout } from "./support/fuzz-run.ts";
import { type H2Client, h2Client } from "./support/h2-client.ts";
import { type HealthProbe, startHealthProbe } from "./support/health-probe.ts";
import { jsonBody } from "./support/json-inputs.ts";
import { type AuthKind, authHeader, authKind, type Credentials } from "./support/nasty-inputs.ts";
import { contractServices, type RpcMethod, rpcMethods } from "./support/proto-routes.ts";
import { sendRaw } from "./support/raw-http.ts";
import { printable, showBytes, showH2Request, showRequest } from "./support/render.ts";
import { type FrameFault, frame, frameFault, protoBody } from "./support/rpc-inputs.ts";

/** One call: a method, who calls, extra headers, and the body as sent. */
interface RpcCase {
  path: string;
  auth: AuthKind;
  headers: Record<string, string>;
  body: Buffer;
}

const showCase = (c: RpcCase) =>
  [
    `POST ${c.path}`,
    `auth ${JSON.stringify(c.auth).slice(0, 80)}`,
    `headers ${JSON.stringify(c.headers)}`,
    `body ${showBytes(c.body)}`,
  ].join(", ");

/**
 * Frames of `message`s, the last one broken as `fault` says. Only the last: a wrong length
 * earlier would make the next frame's bytes a message, and decoding garbage is what the
 * message properties test.
 */
const framed = (message: fc.Arbitrary<Buffer>, fault: fc.Arbitrary<FrameFault>) =>
  fc
    .tuple(fc.array(message, { maxLength: 2 }), fault)
    .map(([payloads, f]) =>
      Buffer.concat(payloads.map((p, i) => frame(p, i === payloads.length - 1 ? f : "none"))),
    );

/** Headers a gRPC client may send, valid or not. */
const grpcHeaders = (contentType: fc.Arbitrary<string>) =>
  fc.record(
    {
      "content-type": contentType,
      "grpc-encoding": fc.constantFrom("identity", "gzip", "deflate", "snappy", ""),
      "grpc-timeout": fc.constantFrom("1n", "5S", "99999999H", "0m", "abc", "-1S"),
      "grpc-accept-encoding": fc.constantFrom("gzip", "identity", "x,y,z"),
    },
    { requiredKeys: ["content-type"] },
  );

describe("fuzz: Connect, gRPC and gRPC-Web door", () => {
  let server: TestServer;
  let probe: HealthProbe;
  let methods: RpcMethod[];
  let known: string[];
  let credentials: Credentials;
  let h2: H2Client;
  const budget = { runs: 200, ms: 1100 };

  before(async () => {
    server = await startTestServer("sqlite");
    methods = rpcMethods(await contractServices());
    known = [server.org.groupUid, server.org.identityUid];
    credentials = {
      owner: server.org.token,
      otherAudience: await server.token(server.org.identityUid, {
        audience: server.lading.registryAudience,
      }),
    };
    h2 = h2Client(server.apiUrl);
    probe = startHealthProbe(server.apiUrl);
  });
  after(async () => {
    h2?.close();
    await probe?.stop();
    await server?.close();
  });

  const options = () => ({ file: import.meta.filename, budget, probe });

  /** A case per method, the body and headers made by `parts`. */
  const rpcCase = (
    among: RpcMethod[],
    parts: (m: RpcMethod) => { body: fc.Arbitrary<Buffer>; headers: fc.Arbitrary<object> },
  ) =>
    fc
      .constantFrom(...among)
      .chain((m) => {
        const p = parts(m);
        return fc.record({
          path: fc.constant(m.path),
          auth: authKind,
          headers: p.headers as fc.Arbitrary<Record<string, string>>,
          body: p.body,
        });
      })
      .map((c) => printable(c, showCase));

  const headersOf = (c: RpcCase): [string, string][] => {
    const authorization = authHeader(c.auth, credentials);
    const headers = Object.entries(c.headers);
    return authorization === undefined ? headers : [...headers, ["authorization", authorization]];
  };

  async function overHttp1(c: RpcCase, check: typeof checkConnectAnswer): Promise<void> {
    const request = { method: "POST", target: c.path, headers: headersOf(c), body: c.body };
    check(showRequest(request), await sendRaw(server.apiUrl, request));
  }

  async function overHttp2(c: RpcCase): Promise<void> {
    const request = {
      path: c.path,
      headers: { te: "trailers", ...Object.fromEntries(headersOf(c)) },
      body: c.body,
    };
    checkGrpcAnswer(showH2Request(request), await h2.send(request));
  }

  const connectHeaders = (type: string) =>
    fc.record(
      {
        "content-type": fc.constant(type),
        "connect-protocol-version": fc.constantFrom("1", "2", ""),
        "connect-timeout-ms": fc.constantFrom("1", "0", "99999999999", "x"),
        "content-encoding": fc.constantFrom("identity", "gzip", "br"),
        // What the answer may be compressed with: fetch sends gzip by default, and a long
        // error compressed by the library was once never answered.
        "accept-encoding": fc.constantFrom("identity", "gzip", "br", "gzip, deflate, br"),
      },
      { requiredKeys: ["content-type"] },
    );
  const grpcType = fc.constantFrom("application/grpc", "application/grpc+proto");
  const webType = fc.constantFrom("application/grpc-web", "application/grpc-web+proto");
  const overWeb = (c: RpcCase) => overHttp1(c, checkGrpcAnswer);
  const overConnect = (c: RpcCase) => overHttp1(c, checkConnectAnswer);
  /** Streams need HTTP/2; over HTTP/1.1 they are checked once, below, not fuzzed. */
  const unary = () => methods.filter((m) => !m.streaming);

  it("survives random binary messages over Connect", { timeout: fuzzTestTimeout }, async (t) => {
    const arb = rpcCase(unary(), (m) => ({
      body: protoBody(m.input, known),
      headers: connectHeaders("application/proto"),
    }));
    await fuzz(t, arb, overConnect, options());
  });

  it("survives random JSON over Connect", { timeout: fuzzTestTimeout }, async (t) => {
    const arb = rpcCase(unary(), (m) => ({
      body: jsonBody(m.input, known),
      headers: connectHeaders("application/json"),
    }));
    await fuzz(t, arb, overConnect, options());
  });

  it("survives random messages in gRPC frames over HTTP/2", {
    timeout: fuzzTestTimeout,
  }, async (t) => {
    const arb = rpcCase(methods, (m) => ({
      body: framed(protoBody(m.input, known), fc.constant("none")),
      headers: grpcHeaders(grpcType),
    }));
    await fuzz(t, arb, overHttp2, options());
  });

  it("survives broken gRPC frames over HTTP/2", { timeout: fuzzTestTimeout }, async (t) => {
    const arb = rpcCase(methods, () => ({
      body: framed(fc.constant(Buffer.alloc(0)), frameFault),
      headers: grpcHeaders(fc.oneof(grpcType, fc.constantFrom("application/grpc+json"))),
    }));
    await fuzz(t, arb, overHttp2, options());
  });

  it("survives random messages over gRPC-Web", { timeout: fuzzTestTimeout }, async (t) => {
    const arb = rpcCase(unary(), (m) => ({
      body: framed(protoBody(m.input, known), fc.constant("none")),
      headers: grpcHeaders(webType),
    }));
    await fuzz(t, arb, overWeb, options());
  });

  it("survives broken gRPC-Web frames", { timeout: fuzzTestTimeout }, async (t) => {
    const arb = rpcCase(unary(), () => ({
      body: framed(fc.constant(Buffer.alloc(0)), frameFault),
      headers: grpcHeaders(webType),
    }));
    await fuzz(t, arb, overWeb, options());
  });

  it("survives compressed frames of garbage over gRPC and gRPC-Web", {
    timeout: fuzzTestTimeout,
  }, async (t) => {
    const garbage = fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b));
    const arb = fc.tuple(
      fc.boolean(),
      rpcCase(unary(), () => ({
        body: framed(garbage, fc.constant("compressed")),
        headers: grpcHeaders(grpcType),
      })),
    );
    const run = ([web, c]: [boolean, RpcCase]) =>
      web
        ? overWeb({ ...c, headers: { ...c.headers, "content-type": "application/grpc-web" } })
        : overHttp2(c);
    await fuzz(t, arb, run, options());
  });

  it("refuses streaming methods over HTTP/1.1 below 500", async () => {
    const streaming = methods.filter((m) => m.streaming);
    for (const [type, check] of [
      ["application/grpc-web", checkGrpcAnswer],
      ["application/json", checkConnectAnswer],
      ["application/connect+json", checkConnectAnswer],
    ] as const) {
      for (const m of streaming) {
        const request = {
          method: "POST",
          target: m.path,
          headers: [["content-type", type]] as [string, string][],
          body: frame(Buffer.alloc(0), "none"),
        };
        check(showRequest(request), await sendRaw(server.apiUrl, request));
      }
    }
  });
});
