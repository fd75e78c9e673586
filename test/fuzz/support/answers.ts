import { brotliDecompressSync, gunzipSync } from "node:zlib";
import type { H2Answer } from "./h2-client.ts";
import type { RawAnswer } from "./raw-http.ts";
import { showAnswer } from "./render.ts";

/** Longest acceptable time to a complete answer. */
export const answerLimitMs = 5000;

/** gRPC codes no input may cause: UNKNOWN, INTERNAL, UNAVAILABLE. */
const serverFaultCodes = new Set([2, 13, 14]);

/** What a failed check says: the property, the request as sent, the answer. */
function fail(property: string, request: string, answer: RawAnswer | H2Answer): never {
  throw new Error(`${property}\nrequest:\n  ${request}\nanswer:\n  ${showAnswer(answer)}`);
}

/**
 * Node's own HTTP parser refused the request (431, 400 on a malformed request line…) before
 * any door saw it: such answers carry no request id, and need no structured body.
 */
export function answeredByParser(answer: RawAnswer): boolean {
  return answer.headers["x-request-id"] === undefined;
}

function common(request: string, answer: RawAnswer | H2Answer): void {
  if (answer.status >= 500) fail(`status ${answer.status} >= 500`, request, answer);
  if (answer.ms > answerLimitMs) fail(`answered after ${answerLimitMs} ms`, request, answer);
}

/** The body as sent, or decompressed when the answer says it is compressed. */
function plainBody(answer: RawAnswer | H2Answer): Buffer {
  const encoding = answer.headers["content-encoding"];
  if (encoding === "gzip") return gunzipSync(answer.body);
  if (encoding === "br") return brotliDecompressSync(answer.body);
  return answer.body;
}

function jsonOf(answer: RawAnswer | H2Answer): Record<string, unknown> | undefined {
  try {
    const value = JSON.parse(plainBody(answer).toString("utf8")) as unknown;
    return value !== null && typeof value === "object" && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The API listener's promise for REST and raw routes: below 500, in time, and an error is a
 * google.rpc.Status JSON body (numeric `code`, string `message`).
 */
export function checkStatusAnswer(request: string, answer: RawAnswer, head = false): void {
  common(request, answer);
  if (answeredByParser(answer)) {
    if (answer.status < 400) fail("parser answer that is not a 4xx", request, answer);
    return;
  }
  if (answer.status < 400 || head) return;
  const body = jsonOf(answer);
  if (typeof body?.code !== "number" || typeof body.message !== "string") {
    fail("error body is not google.rpc.Status JSON {code, message}", request, answer);
  }
}

/**
 * Connect unary: below 500, in time, and an error is JSON with a `code` (a Connect code name;
 * a google.rpc.Status number when the REST door answered instead).
 */
export function checkConnectAnswer(request: string, answer: RawAnswer): void {
  common(request, answer);
  if (answeredByParser(answer) || answer.status < 400) return;
  const code = jsonOf(answer)?.code;
  if (typeof code !== "string" && typeof code !== "number") {
    fail("Connect error body is not JSON with a code", request, answer);
  }
}

/**
 * gRPC and gRPC-Web: below 500, in time, a grpc-status (trailers, headers of a trailers-only
 * answer, or the gRPC-Web trailer frame) that is not a server fault.
 */
export function checkGrpcAnswer(request: string, answer: RawAnswer | H2Answer): void {
  common(request, answer);
  if (!("trailers" in answer) && answeredByParser(answer)) return;
  const status = grpcStatusOf(answer);
  if (status === undefined) fail("no grpc-status", request, answer);
  if (serverFaultCodes.has(status)) fail(`grpc-status ${status}`, request, answer);
}

/** The grpc-status of an answer, wherever it travels. */
export function grpcStatusOf(answer: RawAnswer | H2Answer): number | undefined {
  const fromTrailers = "trailers" in answer ? answer.trailers["grpc-status"] : undefined;
  const text = fromTrailers ?? answer.headers["grpc-status"] ?? webTrailer(answer.body);
  return text === undefined ? undefined : Number(text);
}

/** grpc-status from the trailer frame (flag 0x80) of a gRPC-Web body. */
function webTrailer(body: Buffer): string | undefined {
  let at = 0;
  while (at + 5 <= body.length) {
    const flag = body[at];
    const length = body.readUInt32BE(at + 1);
    const payload = body.subarray(at + 5, at + 5 + length);
    if (flag & 0x80) return /grpc-status:\s*(\d+)/i.exec(payload.toString("latin1"))?.[1];
    at += 5 + length;
  }
  return undefined;
}

/** The registry listener: below 500, in time, an error is `{"errors":[{code, message}…]}`. */
export function checkOciAnswer(request: string, answer: RawAnswer, head = false): void {
  common(request, answer);
  if (answeredByParser(answer)) {
    if (answer.status < 400) fail("parser answer that is not a 4xx", request, answer);
    return;
  }
  if (answer.status < 400 || head) return;
  const errors = jsonOf(answer)?.errors;
  const ok =
    Array.isArray(errors) &&
    errors.length > 0 &&
    errors.every((e) => typeof e?.code === "string" && typeof e?.message === "string");
  if (!ok) fail("error body is not OCI {errors: [{code, message}]}", request, answer);
}

/** Throws `property` with the answer unless `holds`. */
export function expect(holds: boolean, property: string, request: string, answer: RawAnswer) {
  if (!holds) fail(property, request, answer);
}
