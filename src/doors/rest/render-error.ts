import { create, createRegistry, toJsonString } from "@bufbuild/protobuf";
import { anyPack } from "@bufbuild/protobuf/wkt";
import { Code } from "@connectrpc/connect";
import type { Logger } from "pino";
import { asLadingError, type LadingError } from "../../errors/index.ts";
import { StatusSchema } from "../../gen/google/rpc/status_pb.js";
import { errorDetailSchemas, errorDetails, type HttpResponse } from "../../rpc/index.ts";

const registry = createRegistry(...errorDetailSchemas);

const statusByCode = new Map<Code, number>([
  [Code.Canceled, 499],
  [Code.InvalidArgument, 400],
  [Code.DeadlineExceeded, 504],
  [Code.NotFound, 404],
  [Code.AlreadyExists, 409],
  [Code.PermissionDenied, 403],
  [Code.ResourceExhausted, 429],
  [Code.FailedPrecondition, 400],
  [Code.Aborted, 409],
  [Code.OutOfRange, 400],
  [Code.Unimplemented, 501],
  [Code.Internal, 500],
  [Code.Unavailable, 503],
  [Code.Unauthenticated, 401],
]);

/**
 * The HTTP status of a gRPC code, following the grpc-gateway convention the reference platform
 * keeps (DESIGN §2, reference §2.4). Codes without a mapping (Unknown, DataLoss) are 500.
 */
export function httpStatusForCode(code: Code): number {
  return statusByCode.get(code) ?? 500;
}

/** The google.rpc.Status JSON text of an error, with typed `@type` details. */
export function statusJson(err: LadingError): string {
  const status = create(StatusSchema, {
    code: err.code,
    message: err.message,
    details: errorDetails(err).map((d) => anyPack(d.desc, d.value)),
  });
  return toJsonString(StatusSchema, status, { registry });
}

/**
 * Writes `err` as a google.rpc.Status JSON body with the given HTTP status (default: the one
 * of its code). 401 answers carry `WWW-Authenticate: Bearer` (RFC 6750).
 */
export function sendStatus(res: HttpResponse, err: LadingError, httpStatus?: number): void {
  const status = httpStatus ?? httpStatusForCode(err.code);
  if (status === 401) res.setHeader("www-authenticate", "Bearer");
  sendJson(res, status, statusJson(err));
}

/** Answers `status` with a JSON text body. */
export function sendJson(res: HttpResponse, status: number, json: string | Buffer): void {
  res.statusCode = status;
  res.setHeader("content-type", "application/json");
  res.setHeader("content-length", Buffer.byteLength(json));
  res.end(json);
}

/**
 * The one REST error renderer, for the transcoder and every raw route. A LadingError becomes
 * `{code, message, details}` with ErrorInfo, BadRequest, PreconditionFailure and ResourceInfo
 * entries; anything else is logged with the request id and answered as INTERNAL (500) whose
 * message carries the request id, so an operator can find the log line.
 */
export function renderRestError(
  res: HttpResponse,
  err: unknown,
  requestId: string,
  log: Logger,
): void {
  const error = asLadingError(err, requestId, log);
  if (res.headersSent) {
    if (!res.writableEnded) res.destroy();
    return;
  }
  sendStatus(res, error);
}
