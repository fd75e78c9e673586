import { promisify } from "node:util";
import { brotliDecompress, gunzip } from "node:zlib";
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
import { fitTrailers } from "./trailer-budget.ts";

const statusHeaders = ["grpc-status", "grpc-message", "grpc-status-details-bin"];
const endStream = createEndStreamSerialization(undefined);

/**
 * `handler` answering INVALID_ARGUMENT where connect-es answers INTERNAL for a request body it
 * cannot decode (see {@link clientDecodeError}). Decoding happens inside connect-es before any
 * interceptor runs, so the error is rewritten where each protocol renders it: the Connect unary
 * error body and HTTP status, the gRPC trailers, the gRPC-Web trailer frame and the Connect
 * end-of-stream frame. Every method of every protocol passes through here. Errors are read
 * as the library wrote them, compressed or not; anything that does not read as an error
 * passes unchanged, so a rewrite never stands between an answer and its client.
 *
 * gRPC trailers are also kept within {@link fitTrailers}' budget, so that a long error reaches
 * clients that limit the size of the trailers they accept.
 */
export function withClientDecodeErrors(handler: UniversalHandler): UniversalHandler {
  const rewrite = async (
    request: Parameters<UniversalHandler>[0],
  ): Promise<UniversalServerResponse> => {
    const response = await handler(request);
    const type = response.header?.get("content-type") ?? "";
    if (type.startsWith("application/grpc-web")) {
      const encoding = response.header?.get("grpc-encoding") ?? "";
      return withFrames(response, trailerFlag, encoding, true, (data) =>
        rewriteTrailerFrame(data, handler.method),
      );
    }
    if (type.startsWith("application/grpc")) return withTrailer(response, handler.method);
    if (type.startsWith("application/connect+")) {
      const encoding = response.header?.get("connect-content-encoding") ?? "";
      return withFrames(response, endStreamFlag, encoding, false, (data) =>
        rewriteEndStream(data, handler.method),
      );
    }
    if (type.startsWith("application/json") && mayBeDecodeError(response.status)) {
      return rewriteUnaryError(response, handler.method);
    }
    return response;
  };
  return Object.assign(rewrite, handler);
}

/** The HTTP statuses of the codes a decode error has: INVALID_ARGUMENT and INTERNAL. */
const mayBeDecodeError = (status: number) =>
  status === codeToHttpStatus(Code.InvalidArgument) || status === codeToHttpStatus(Code.Internal);

/** gRPC: the status is in the trailers, complete once the body has been sent. */
function withTrailer(response: UniversalServerResponse, method: DescMethod) {
  const { body, trailer } = response;
  if (!trailer) return response;
  const headers: Headers = trailer;
  async function* rewritten() {
    if (body) yield* body;
    const found = readTrailerError(headers);
    const error = found && clientDecodeError(found, method);
    if (error) {
      for (const name of statusHeaders) headers.delete(name);
      setTrailerStatus(headers, error);
    }
    fitTrailers(headers);
  }
  return { ...response, body: rewritten() };
}

function readTrailerError(headers: Headers): ConnectError | undefined {
  try {
    return findTrailerError(headers);
  } catch {
    return undefined;
  }
}

/** The compressed bit of an envelope's flags. */
const compressedFlag = 0b00000001;

/**
 * gRPC-Web and Connect streams: the status is the last frame, one frame per chunk, compressed
 * by the library when large. `plain`: send that frame uncompressed even when it is not
 * rewritten (gRPC-Web clients read trailers as plain text).
 */
function withFrames(
  response: UniversalServerResponse,
  flag: number,
  encoding: string,
  plain: boolean,
  rewrite: (data: Uint8Array) => Uint8Array | undefined,
): UniversalServerResponse {
  const { body } = response;
  if (!body) return response;
  async function* rewritten() {
    for await (const chunk of body as AsyncIterable<Uint8Array>) {
      const length =
        chunk.byteLength >= 5 ? new DataView(chunk.buffer, chunk.byteOffset).getUint32(1) : -1;
      const whole = length === chunk.byteLength - 5;
      if (!whole || (chunk[0] !== flag && chunk[0] !== (flag | compressedFlag))) {
        yield chunk;
        continue;
      }
      const data =
        chunk[0] === flag ? chunk.subarray(5) : await decompress(chunk.subarray(5), encoding);
      const changed = data && safely(() => rewrite(data));
      if (changed) yield encodeEnvelope(flag, changed);
      else if (data && plain && chunk[0] !== flag) yield encodeEnvelope(flag, data);
      else yield chunk;
    }
  }
  return { ...response, body: rewritten() };
}

/** `f()`, or undefined when it throws: a rewrite that cannot read a frame leaves it alone. */
function safely<T>(f: () => T | undefined): T | undefined {
  try {
    return f();
  } catch {
    return undefined;
  }
}

const gunzipAsync = promisify(gunzip);
const brotliDecompressAsync = promisify(brotliDecompress);
/** Errors are the library's own output; far above any error an API request can cause. */
const maxErrorBytes = 16 * 1024 * 1024;

/**
 * `data` decompressed with `encoding` (the door compresses with gzip and brotli, off the main
 * thread like the library does); undefined for another encoding or data that does not
 * decompress within {@link maxErrorBytes}.
 */
async function decompress(data: Uint8Array, encoding: string): Promise<Uint8Array | undefined> {
  try {
    if (encoding === "" || encoding === "identity") return data;
    if (encoding === "gzip") return await gunzipAsync(data, { maxOutputLength: maxErrorBytes });
    if (encoding === "br") {
      return await brotliDecompressAsync(data, { maxOutputLength: maxErrorBytes });
    }
  } catch {
    // Not what the library wrote: left as it is.
  }
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

/**
 * Connect unary: the error is the JSON body, its code also the HTTP status. The library
 * compresses a body of 1 KiB or more when the client accepts gzip or brotli (as `fetch` does),
 * so the body is decompressed before it is read; a rewritten error is sent uncompressed.
 */
async function rewriteUnaryError(
  response: UniversalServerResponse,
  method: DescMethod,
): Promise<UniversalServerResponse> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body ?? []) chunks.push(chunk);
  const bytes = Buffer.concat(chunks);
  const json = await decompress(bytes, response.header?.get("content-encoding") ?? "");
  const found = json && safely(() => errorFromJsonBytes(json, undefined, unreadable));
  const error = found && found !== unreadable ? clientDecodeError(found, method) : undefined;
  if (!error) return { ...response, body: once(bytes) };
  const body = errorToJsonBytes(error, undefined);
  const header = new Headers(response.header);
  header.delete("content-encoding");
  header.set("content-length", String(body.byteLength));
  return { ...response, status: codeToHttpStatus(error.code), header, body: once(body) };
}

/** What errorFromJsonBytes answers for JSON that is no error. */
const unreadable = new ConnectError("unreadable error", Code.Unknown);

async function* once(bytes: Uint8Array) {
  yield bytes;
}
