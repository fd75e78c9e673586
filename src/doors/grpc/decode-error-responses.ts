import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { DescMethod } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import {
  encodeEnvelope,
  type UniversalHandler,
  type UniversalServerResponse,
} from "@connectrpc/connect/protocol";
import {
  codeToHttpStatus,
  createEndStreamSerialization,
  endStreamFlag,
  endStreamFromJson,
  errorFromJsonBytes,
  errorToJsonBytes,
} from "@connectrpc/connect/protocol-connect";
import { findTrailerError, setTrailerStatus } from "@connectrpc/connect/protocol-grpc";
import { trailerFlag, trailerParse, trailerSerialize } from "@connectrpc/connect/protocol-grpc-web";
import { clientDecodeError } from "./decode-error.ts";

const statusHeaders = ["grpc-status", "grpc-message", "grpc-status-details-bin"];
const endStream = createEndStreamSerialization(undefined);

/**
 * `handler` answering INVALID_ARGUMENT where connect-es answers INTERNAL for a request body it
 * cannot decode (see {@link clientDecodeError}). Decoding happens inside connect-es before any
 * interceptor runs, so the error is rewritten where each protocol renders it: the Connect unary
 * error body and HTTP status, the gRPC trailers, the gRPC-Web trailer frame and the Connect
 * end-of-stream frame. Every method of every protocol passes through here.
 */
export function withClientDecodeErrors(handler: UniversalHandler): UniversalHandler {
  const rewrite = async (
    request: Parameters<UniversalHandler>[0],
  ): Promise<UniversalServerResponse> => {
    const response = await handler(request);
    const type = response.header?.get("content-type") ?? "";
    if (type.startsWith("application/grpc-web")) {
      const encoding = response.header?.get("grpc-encoding") ?? "";
      return withFrames(
        response,
        trailerFlag,
        (data) => rewriteTrailerFrame(data, handler.method),
        plainTrailers(encoding),
      );
    }
    if (type.startsWith("application/grpc")) return withTrailer(response, handler.method);
    if (type.startsWith("application/connect+")) {
      return withFrames(response, endStreamFlag, (data) => rewriteEndStream(data, handler.method));
    }
    if (type.startsWith("application/json") && response.status !== 200) {
      return rewriteUnaryError(response, handler.method);
    }
    return response;
  };
  return Object.assign(rewrite, handler);
}

/** gRPC: the status is in the trailers, complete once the body has been sent. */
function withTrailer(response: UniversalServerResponse, method: DescMethod) {
  const { body, trailer } = response;
  if (!trailer) return response;
  const headers: Headers = trailer;
  async function* rewritten() {
    if (body) yield* body;
    const found = findTrailerError(headers);
    const error = found && clientDecodeError(found, method);
    if (!error) return;
    for (const name of statusHeaders) headers.delete(name);
    setTrailerStatus(headers, error);
  }
  return { ...response, body: rewritten() };
}

/** gRPC-Web and Connect streams: the status is the last frame, one frame per chunk. */
function withFrames(
  response: UniversalServerResponse,
  flag: number,
  rewrite: (data: Uint8Array) => Uint8Array | undefined,
  decompress?: (data: Uint8Array) => Uint8Array,
): UniversalServerResponse {
  const { body } = response;
  if (!body) return response;
  async function* rewritten() {
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      const length =
        chunk.byteLength >= 5 ? new DataView(chunk.buffer, chunk.byteOffset).getUint32(1) : -1;
      const whole = length === chunk.byteLength - 5;
      // A large trailer frame comes compressed from the library; gRPC-Web clients read
      // trailers as plain text, so it is sent uncompressed.
      if (decompress && whole && chunk[0] === (flag | compressedFlag)) {
        const plain = decompress(chunk.subarray(5));
        yield encodeEnvelope(flag, rewrite(plain) ?? plain);
        continue;
      }
      const data = chunk[0] === flag && whole ? rewrite(chunk.subarray(5)) : undefined;
      yield data ? encodeEnvelope(flag, data) : chunk;
    }
  }
  return { ...response, body: rewritten() };
}

/** The compressed bit of an envelope's flags. */
const compressedFlag = 0b00000001;

/** Decompresses a frame of the response's grpc-encoding (the door compresses with these). */
function plainTrailers(encoding: string): ((data: Uint8Array) => Uint8Array) | undefined {
  if (encoding === "gzip") return (data) => gunzipSync(data);
  if (encoding === "br") return (data) => brotliDecompressSync(data);
  return undefined;
}

function rewriteTrailerFrame(data: Uint8Array, method: DescMethod): Uint8Array | undefined {
  const trailer = trailerParse(data);
  const found = findTrailerError(trailer);
  const error = found && clientDecodeError(found, method);
  if (!error) return undefined;
  for (const name of statusHeaders) trailer.delete(name);
  return trailerSerialize(setTrailerStatus(trailer, error));
}

function rewriteEndStream(data: Uint8Array, method: DescMethod): Uint8Array | undefined {
  const { metadata, error: found } = endStreamFromJson(data);
  const error = found && clientDecodeError(found, method);
  return error ? endStream.serialize({ metadata, error }) : undefined;
}

/** Connect unary: the error is the JSON body, its code also the HTTP status. */
async function rewriteUnaryError(
  response: UniversalServerResponse,
  method: DescMethod,
): Promise<UniversalServerResponse> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body ?? []) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  const unknown = new ConnectError("unreadable error", Code.Unknown);
  const found = errorFromJsonBytes(bytes, undefined, unknown);
  const error = found === unknown ? undefined : clientDecodeError(found, method);
  const body = error ? errorToJsonBytes(error, undefined) : bytes;
  const header = new Headers(response.header);
  if (header.has("content-length")) header.set("content-length", String(body.byteLength));
  return {
    ...response,
    status: error ? codeToHttpStatus(error.code) : response.status,
    header,
    body: (async function* () {
      yield body;
    })(),
  };
}
