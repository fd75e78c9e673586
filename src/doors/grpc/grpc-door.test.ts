import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { create, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorProtoSchema } from "@bufbuild/protobuf/wkt";
import { Code, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { Principal } from "../../auth/index.ts";
import { invalidArgument, notFound, unauthenticated } from "../../errors/index.ts";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  ResourceInfoSchema,
} from "../../gen/google/rpc/error_details_pb.js";
import {
  ServerReflection,
  type ServerReflectionRequest,
  ServerReflectionRequestSchema,
} from "../../gen/grpc/reflection/v1/reflection_pb.js";
import { IdentitiesService } from "../../gen/lading/iam/v2/identities_pb.js";
import { PingService } from "../../gen/lading/ping/v2/ping_pb.js";
import { bindService } from "../../rpc/index.ts";
import { createGrpcDoor, toConnectError } from "./grpc-door.ts";
import { reflectionServices } from "./reflection.ts";

const run = promisify(execFile);
const root = "0123456789abcdef0123456789abcdef01234567";
const logged: unknown[] = [];
const log = { error: (o: unknown) => logged.push(o) } as never;

const services = [
  bindService(
    PingService,
    { ping: async () => ({ response: "pong" }) },
    new Set(["lading.ping.v2.PingService/Ping"]),
  ),
  bindService(IdentitiesService, {
    listIdentities: async (_req, call) => ({
      identities: [{ uid: call.principal?.identityUid }],
      totalCount: 1n,
    }),
    getIdentity: async (req, call) => {
      if (req.uid === "boom") throw new Error("disk full");
      if (req.uid === call.requestId) return { uid: req.uid };
      throw notFound("iam", "identity", req.uid);
    },
    createIdentity: async () => {
      throw invalidArgument("iam", [
        { field: "name", description: "must match the pattern" },
        { field: "claim_match.issuer", description: "must be an https URL" },
      ]);
    },
    updateIdentity: async (req) => ({ uid: req.identity?.uid }),
    deleteIdentity: async (_req, call) => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      call.signal.throwIfAborted();
      return {};
    },
  }),
];

/** The ConnectError a call fails with; fails the test when the call succeeds. */
async function rpcError(call: Promise<unknown>): Promise<ConnectError> {
  const outcome = await call.then(
    () => undefined,
    (e: unknown) => ConnectError.from(e),
  );
  assert.ok(outcome, "expected the call to fail");
  return outcome;
}

/** A raw HTTP/2 POST: the HTTP status, the grpc-status wherever it came, the body as text. */
function rawCall(base: string, path: string, body: Buffer, headers: Record<string, string>) {
  const session = http2.connect(base);
  return new Promise<{ status: number; grpcStatus?: string; body: string }>((resolve, reject) => {
    const stream = session.request({
      ":method": "POST",
      ":path": path,
      te: "trailers",
      ...headers,
    });
    let status = 0;
    let grpcStatus: string | undefined;
    const chunks: Buffer[] = [];
    stream.on("response", (h) => {
      status = Number(h[":status"]);
      grpcStatus ??= h["grpc-status"] as string | undefined;
    });
    stream.on("trailers", (t) => (grpcStatus ??= t["grpc-status"] as string | undefined));
    stream.on("data", (chunk: Buffer) => chunks.push(chunk));
    stream.on("error", reject);
    stream.on("close", () =>
      resolve({ status, grpcStatus, body: Buffer.concat(chunks).toString() }),
    );
    stream.end(body);
  }).finally(() => session.close());
}

async function authenticate(authorization: string | undefined): Promise<Principal> {
  if (authorization !== "Bearer good")
    throw unauthenticated("INVALID_TOKEN", "a valid bearer token is required");
  return {
    identityUid: root,
    claims: {},
    grants: async () => ({ can: () => true, scopes: () => [] }),
  };
}

describe("gRPC door", () => {
  let server: http2.Http2Server;
  let base = "";
  before(async () => {
    const door = createGrpcDoor({ services, authenticate, log });
    server = http2.createServer((req, res) => door(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const transport = () => createGrpcTransport({ baseUrl: base });
  const headers = { authorization: "Bearer good" };

  it("lists services and methods through reflection with buf curl", async () => {
    const curl = ["curl", "--http2-prior-knowledge", "--protocol", "grpc"];
    const services = (await run("buf", [...curl, "--list-services", base])).stdout
      .trim()
      .split("\n");
    assert.deepEqual(services.sort(), [
      "grpc.reflection.v1.ServerReflection",
      "grpc.reflection.v1alpha.ServerReflection",
      "lading.iam.v2.IdentitiesService",
      "lading.ping.v2.PingService",
    ]);
    const methods = (await run("buf", [...curl, "--list-methods", base])).stdout;
    assert.match(methods, /^lading\.ping\.v2\.PingService\/Ping$/m);
    assert.match(methods, /^lading\.iam\.v2\.IdentitiesService\/UpdateIdentity$/m);
  });

  it("calls a method described by reflection with buf curl", async () => {
    const curl = ["curl", "--http2-prior-knowledge", "--protocol", "grpc", "--data", "{}"];
    const { stdout } = await run("buf", [...curl, `${base}/lading.ping.v2.PingService/Ping`]);
    assert.deepEqual(JSON.parse(stdout), { response: "pong" });
  });

  it("answers file_containing_symbol with the file and its imports, and NOT_FOUND for unknown ones", async () => {
    for (const service of [ServerReflection, reflectionServices[1]]) {
      const client = createClient(service as typeof ServerReflection, transport());
      async function* requests(): AsyncIterable<ServerReflectionRequest> {
        yield create(ServerReflectionRequestSchema, {
          messageRequest: {
            case: "fileContainingSymbol",
            value: "lading.iam.v2.IdentitiesService.GetIdentity",
          },
        });
        yield create(ServerReflectionRequestSchema, {
          messageRequest: { case: "fileContainingSymbol", value: "no.Such" },
        });
        yield create(ServerReflectionRequestSchema, {
          messageRequest: { case: "fileByFilename", value: "lading/ping/v2/ping.proto" },
        });
      }
      const answers = [];
      for await (const answer of client.serverReflectionInfo(requests()))
        answers.push(answer.messageResponse);
      assert.equal(answers[0].case, "fileDescriptorResponse");
      const names = (
        answers[0].value as { fileDescriptorProto: Uint8Array[] }
      ).fileDescriptorProto.map((bytes) => fromBinary(FileDescriptorProtoSchema, bytes).name);
      assert.equal(names[0], "lading/iam/v2/identities.proto");
      for (const dep of [
        "google/api/annotations.proto",
        "google/api/http.proto",
        "google/protobuf/descriptor.proto",
        "google/protobuf/field_mask.proto",
        "lading/common/v2/list.proto",
      ]) {
        assert.ok(names.includes(dep), `${dep} in ${names}`);
      }
      assert.equal(answers[1].case, "errorResponse");
      const { errorCode, errorMessage } = answers[1].value as {
        errorCode: number;
        errorMessage: string;
      };
      assert.deepEqual([errorCode, errorMessage], [Code.NotFound, "symbol no.Such not found"]);
      assert.equal(answers[2].case, "fileDescriptorResponse");
    }
  });

  it("serves an anonymous unary method without credentials", async () => {
    const ping = createClient(PingService, transport());
    assert.equal((await ping.ping({})).response, "pong");
  });

  it("authenticates the authorization header and passes the request id", async () => {
    const client = createClient(IdentitiesService, transport());
    const page = await client.listIdentities({}, { headers });
    assert.equal(page.identities[0].uid, root);
    const echoed = await client.getIdentity(
      { uid: "rid-7" },
      { headers: { ...headers, "x-request-id": "rid-7" } },
    );
    assert.equal(echoed.uid, "rid-7");
    const refused = await rpcError(client.listIdentities({}));
    assert.equal(refused.code, Code.Unauthenticated);
    assert.equal(refused.findDetails(ErrorInfoSchema)[0].reason, "INVALID_TOKEN");
  });

  it("sends LadingError details typed, in grpc-status-details-bin", async () => {
    const client = createClient(IdentitiesService, transport());
    const err = await rpcError(client.createIdentity({ parent: root }, { headers }));
    assert.equal(err.code, Code.InvalidArgument);
    assert.equal(
      err.rawMessage,
      "Invalid argument: name: must match the pattern; claim_match.issuer: must be an https URL",
    );
    const info = err.findDetails(ErrorInfoSchema)[0];
    assert.deepEqual([info.reason, info.domain], ["INVALID_ARGUMENT", "iam.lading.dev"]);
    assert.deepEqual(
      err.findDetails(BadRequestSchema)[0].fieldViolations.map((v) => v.field),
      ["name", "claim_match.issuer"],
    );
    const missing = await rpcError(client.getIdentity({ uid: "x" }, { headers }));
    assert.equal(missing.code, Code.NotFound);
    assert.equal(missing.findDetails(ResourceInfoSchema)[0].resourceName, "x");
  });

  it("answers INTERNAL naming the request id for other errors, and logs them", async () => {
    const client = createClient(IdentitiesService, transport());
    const err = await rpcError(
      client.getIdentity({ uid: "boom" }, { headers: { ...headers, "x-request-id": "rid-boom" } }),
    );
    assert.equal(err.code, Code.Internal);
    assert.match(err.rawMessage, /rid-boom/);
    assert.doesNotMatch(err.rawMessage, /disk/);
    assert.ok(logged.some((entry) => (entry as { requestId?: string }).requestId === "rid-boom"));
  });

  it("makes the message of an error well-formed, so gRPC can percent-encode it", () => {
    const error = toConnectError(notFound("iam", "identity", "a\ud800"), "r", log);
    assert.equal(error.rawMessage, "Not found: identity a\ufffd");
    assert.doesNotThrow(() => encodeURIComponent(error.rawMessage));
  });

  it("takes a deadline too long for a timer as none instead of letting it expire at once", async () => {
    const call = (timeout: string) =>
      rawCall(base, "/lading.iam.v2.IdentitiesService/DeleteIdentity", Buffer.alloc(5), {
        "content-type": "application/grpc",
        "grpc-timeout": timeout,
        ...headers,
      });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on("warning", onWarning);
    try {
      assert.equal((await call("99999999H")).grpcStatus, "0");
      assert.equal((await call("596H")).grpcStatus, "0");
      assert.equal((await call("1m")).grpcStatus, String(Code.DeadlineExceeded));
      await new Promise((resolve) => setImmediate(resolve));
      assert.deepEqual(warnings, []);
    } finally {
      process.off("warning", onWarning);
    }
  });

  it("answers INVALID_ARGUMENT for a request body that does not decompress", async () => {
    const truncated = gzipSync(Buffer.from("{}")).subarray(0, 5);
    const frame = Buffer.concat([Buffer.from([1, 0, 0, 0, truncated.length]), truncated]);
    for (const encoding of ["gzip", "br"]) {
      const grpc = await rawCall(base, "/lading.ping.v2.PingService/Ping", frame, {
        "content-type": "application/grpc",
        "grpc-encoding": encoding,
      });
      assert.equal(grpc.grpcStatus, String(Code.InvalidArgument), encoding);
      const connect = await rawCall(base, "/lading.ping.v2.PingService/Ping", truncated, {
        "content-type": "application/json",
        "content-encoding": encoding,
      });
      assert.equal(connect.status, 400, encoding);
      assert.equal(JSON.parse(connect.body).code, "invalid_argument", encoding);
    }
  });

  it("knows which RPC paths it serves", () => {
    const door = createGrpcDoor({ services, authenticate, log });
    assert.ok(door.serves("/lading.ping.v2.PingService/Ping"));
    assert.ok(door.serves("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo"));
    assert.ok(!door.serves("/lading.ping.v2.PingService/Nope"));
  });
});
