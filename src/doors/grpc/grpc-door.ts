import { randomUUID } from "node:crypto";
import type { DescMethod } from "@bufbuild/protobuf";
import { ConnectError, createConnectRouter, type HandlerContext } from "@connectrpc/connect";
import type { Logger } from "pino";
import type { Principal } from "../../auth/index.ts";
import { asLadingError } from "../../errors/index.ts";
import {
  type BoundService,
  errorDetails,
  type Handler,
  type HttpRequest,
  type HttpResponse,
} from "../../rpc/index.ts";
import { withClientDecodeErrors } from "./decode-error-responses.ts";
import { refuseStreamOverHttp1 } from "./http1-streams.ts";
import { WellFormedJsonDecoder } from "./json-decoder.ts";
import { createNodeAdapter } from "./node-adapter.ts";
import { reflectionServices, registerReflection } from "./reflection.ts";
import { requestCompressions } from "./request-compression.ts";

/** The longest delay a Node timer holds (about 24.8 days). */
const maxTimerMs = 2 ** 31 - 1;
const grpcTimeout = /^(\d{1,8})([HMSmun])$/;
const unitMs: Record<string, number> = { H: 3_600_000, M: 60_000, S: 1000, m: 1, u: 1e-3, n: 1e-6 };

/**
 * Drops a deadline longer than a Node timer holds: the RPC library would arm an overflowing
 * timer, which Node fires after 1 ms (with a process warning per call), so a client asking
 * for ~forever (`grpc-timeout: 99999999H`) would time out at once. Such a deadline is as good
 * as none.
 */
function dropEndlessDeadline(req: HttpRequest): void {
  const grpc = grpcTimeout.exec(String(req.headers["grpc-timeout"]));
  if (grpc && Number(grpc[1]) * unitMs[grpc[2]] > maxTimerMs) delete req.headers["grpc-timeout"];
  const connect = String(req.headers["connect-timeout-ms"]);
  if (/^\d{1,10}$/.test(connect) && Number(connect) > maxTimerMs) {
    delete req.headers["connect-timeout-ms"];
  }
}

/** What the gRPC door serves and how it learns who calls. */
export interface GrpcDoorOptions {
  services: BoundService[];
  /**
   * Turns the `authorization` header (undefined when absent) into a principal, or throws a
   * LadingError (UNAUTHENTICATED). Not called for reflection, nor for anonymous methods when
   * the request carries no authorization header.
   */
  authenticate(authorization: string | undefined): Promise<Principal>;
  /** Where errors that are not LadingErrors are logged, with the request id. */
  log: Logger;
  /** Largest request message accepted, in bytes. Default 1 MiB, the REST door's body limit. */
  maxMessageBytes?: number;
}

/**
 * A Node request handler serving gRPC, gRPC-Web and Connect for every service plus server
 * reflection; `serves(path)` tells whether a `/<package>.<Service>/<Method>` path is one of
 * its methods.
 */
export interface GrpcDoor {
  (req: HttpRequest, res: HttpResponse): void;
  serves(path: string): boolean;
}

const bidiPaths = new Set(
  reflectionServices.flatMap((s) =>
    s.methods
      .filter((m) => m.methodKind === "bidi_streaming")
      .map((m) => `/${s.typeName}/${m.name}`),
  ),
);

/**
 * Creates the gRPC door (DESIGN §2). Every unary method authenticates the `authorization`
 * header (an anonymous method only when one is sent), builds the Call (request id from the
 * `x-request-id` header the API handler sets) and calls the same handler the REST door calls.
 * A LadingError becomes a status with the same code and message and typed details (ErrorInfo,
 * BadRequest, PreconditionFailure, ResourceInfo) in grpc-status-details-bin; anything else is
 * logged and becomes INTERNAL naming the request id. A request body that does not decode is
 * INVALID_ARGUMENT on every protocol ({@link withClientDecodeErrors}).
 */
export function createGrpcDoor(options: GrpcDoorOptions): GrpcDoor {
  const paths = new Set<string>();
  const router = createConnectRouter({
    readMaxBytes: options.maxMessageBytes ?? 1024 * 1024,
    acceptCompression: requestCompressions,
    // Read by the library's JSON parsing though its option type leaves it out.
    jsonOptions: { textDecoder: new WellFormedJsonDecoder() } as object,
  });
  for (const bound of options.services) {
    const impl: Record<string, unknown> = {};
    for (const method of bound.service.methods) {
      if (method.methodKind !== "unary") continue;
      impl[method.localName] = unaryMethod(bound, method, options);
      paths.add(`/${bound.service.typeName}/${method.name}`);
    }
    router.service(bound.service, impl as never);
  }
  registerReflection(
    router,
    options.services.map((s) => s.service),
  );
  for (const service of reflectionServices) {
    for (const method of service.methods) paths.add(`/${service.typeName}/${method.name}`);
  }
  const handler = createNodeAdapter(router.handlers.map(withClientDecodeErrors), options.log);
  const door = (req: HttpRequest, res: HttpResponse) => {
    if (req.httpVersionMajor === 1 && bidiPaths.has((req.url ?? "/").split("?", 1)[0])) {
      refuseStreamOverHttp1(req, res);
      return;
    }
    dropEndlessDeadline(req);
    handler(req, res);
  };
  return Object.assign(door, {
    serves: (path: string) => paths.has(path),
  });
}

function unaryMethod(bound: BoundService, method: DescMethod, options: GrpcDoorOptions) {
  const fullName = `${bound.service.typeName}/${method.name}`;
  const anonymous = bound.anonymous?.has(fullName) ?? false;
  const handler = (bound.handlers as Record<string, Handler<never>>)[
    method.localName
  ] as unknown as (request: unknown, call: unknown) => Promise<unknown>;
  return async (request: unknown, ctx: HandlerContext) => {
    const requestId = ctx.requestHeader.get("x-request-id") ?? randomUUID();
    try {
      const authorization = ctx.requestHeader.get("authorization") ?? undefined;
      // Anonymous methods still check credentials sent (see the REST door).
      const principal =
        anonymous && authorization === undefined
          ? undefined
          : await options.authenticate(authorization);
      return await handler(request, { principal, requestId, signal: ctx.signal });
    } catch (err) {
      throw toConnectError(err, requestId, options.log);
    }
  };
}

/**
 * The gRPC rendering of an error: a LadingError keeps its code and message and carries its
 * typed details; a ConnectError passes unchanged; anything else is logged and answered as
 * INTERNAL with the request id in its message.
 */
export function toConnectError(err: unknown, requestId: string, log: Logger): ConnectError {
  if (err instanceof ConnectError) return err;
  const error = asLadingError(err, requestId, log);
  // Well-formed: gRPC percent-encodes the message, which a lone surrogate makes throw.
  return new ConnectError(error.message.toWellFormed(), error.code, undefined, errorDetails(error));
}
