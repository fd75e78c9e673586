import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { brotliCompressSync, gunzipSync, gzipSync } from "node:zlib";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  encodeEnvelope,
  type UniversalHandler,
  type UniversalServerResponse,
} from "@connectrpc/connect/protocol";
import { errorToJsonBytes } from "@connectrpc/connect/protocol-connect";
import { GroupsService } from "../../gen/lading/iam/v2/groups_pb.js";
import { withClientDecodeErrors } from "./decode-error-responses.ts";

const method = GroupsService.method.listGroups;
const decodeError = new ConnectError(`parse binary: ${"x".repeat(2000)}`, Code.Internal);
const otherError = new ConnectError(
  `Permission denied: ${"y".repeat(2000)}`,
  Code.PermissionDenied,
);
const compress = { gzip: gzipSync, br: brotliCompressSync } as const;

/** A handler answering `response` as the library would, wrapped by the door. */
function answering(response: UniversalServerResponse) {
  const handler = Object.assign(async () => response, {
    protocolNames: ["connect"],
    service: GroupsService,
    method,
    requestPath: "/lading.iam.v2.GroupsService/ListGroups",
    allowedMethods: ["POST"],
    supportedContentType: () => true,
  }) as unknown as UniversalHandler;
  return withClientDecodeErrors(handler)({} as never);
}

async function* chunks(...parts: Uint8Array[]) {
  yield* parts;
}

async function bytesOf(response: UniversalServerResponse): Promise<Buffer> {
  const out: Uint8Array[] = [];
  for await (const chunk of response.body ?? []) out.push(chunk);
  return Buffer.concat(out);
}

/** A Connect unary error body as the library writes it, compressed with `encoding`. */
function unaryError(error: ConnectError, status: number, encoding?: "gzip" | "br") {
  const json = errorToJsonBytes(error, undefined);
  const body = encoding ? compress[encoding](json) : json;
  const header = new Headers({ "content-type": "application/json" });
  if (encoding) header.set("content-encoding", encoding);
  header.set("content-length", String(body.byteLength));
  return { response: { status, header, body: chunks(body) }, body };
}

describe("decode error rewrites read what the library wrote", () => {
  for (const encoding of [undefined, "gzip", "br"] as const) {
    it(`rewrites a Connect unary decode error sent ${encoding ?? "plain"}, uncompressed`, async () => {
      const { response } = unaryError(decodeError, 500, encoding);
      const rewritten = await answering(response);
      const body = await bytesOf(rewritten);
      assert.equal(rewritten.status, 400);
      assert.equal(rewritten.header?.get("content-encoding"), null);
      assert.equal(rewritten.header?.get("content-length"), String(body.length));
      const json = JSON.parse(body.toString("utf8"));
      assert.equal(json.code, "invalid_argument");
      assert.match(json.message, /^Invalid argument: body: must be a binary/);
    });

    it(`passes any other Connect unary error sent ${encoding ?? "plain"} byte for byte`, async () => {
      const { response, body } = unaryError(otherError, 403, encoding);
      const passed = await answering(response);
      assert.equal(passed.status, 403);
      assert.equal(passed.header?.get("content-encoding"), encoding ?? null);
      assert.deepEqual(await bytesOf(passed), Buffer.from(body));
    });
  }

  it("passes a unary body it cannot read, whatever it claims to be", async () => {
    for (const [encoding, body] of [
      ["gzip", Buffer.from("not gzip")],
      ["zstd", Buffer.from("?")],
      ["", Buffer.from("{not json")],
      ["", Buffer.from('{"json":"but no error"}')],
    ] as const) {
      const header = new Headers({ "content-type": "application/json" });
      if (encoding) header.set("content-encoding", encoding);
      const passed = await answering({ status: 400, header, body: chunks(body) });
      assert.equal(passed.status, 400);
      assert.deepEqual(await bytesOf(passed), body, encoding);
    }
  });

  it("rewrites a compressed Connect end-of-stream frame", async () => {
    const end = Buffer.from(
      JSON.stringify({ error: { code: "internal", message: decodeError.rawMessage } }),
    );
    const response = {
      status: 200,
      header: new Headers({
        "content-type": "application/connect+proto",
        "connect-content-encoding": "gzip",
      }),
      body: chunks(encodeEnvelope(0b11, gzipSync(end))),
    };
    const frame = await bytesOf(await answering(response));
    assert.equal(frame[0], 0b10, "an uncompressed end-of-stream frame");
    const json = JSON.parse(frame.subarray(5).toString("utf8"));
    assert.equal(json.error.code, "invalid_argument");
  });

  it("sends a compressed gRPC-Web trailer frame uncompressed, rewritten or not", async () => {
    for (const [text, expected] of [
      [
        `grpc-status: 13\r\ngrpc-message: ${encodeURIComponent(decodeError.rawMessage)}\r\n`,
        /grpc-status: 3\r\n/,
      ],
      [`grpc-status: 7\r\ngrpc-message: ${"z".repeat(2000)}\r\n`, /grpc-status: 7\r\n/],
    ] as const) {
      const response = {
        status: 200,
        header: new Headers({
          "content-type": "application/grpc-web+proto",
          "grpc-encoding": "gzip",
        }),
        body: chunks(encodeEnvelope(0x81, gzipSync(text))),
      };
      const frame = await bytesOf(await answering(response));
      assert.equal(frame[0], 0x80);
      assert.match(frame.subarray(5).toString("latin1"), expected);
      assert.throws(() => gunzipSync(frame.subarray(5)), "not compressed any more");
    }
  });
});
