import http2, { type Http2ServerRequest } from "node:http2";
import { create, createRegistry, toJsonString } from "@bufbuild/protobuf";
import { Code } from "@connectrpc/connect";
import type { Principal } from "../../auth/index.ts";
import { errorDomain, invalidArgument, LadingError } from "../../errors/index.ts";
import type {
  BoundService,
  Call,
  Handler,
  HttpRequest,
  HttpResponse,
  RouteContext,
} from "../../rpc/index.ts";
import { isImmutable } from "../../rpc/index.ts";
import { maxBodyBytes, readBody } from "./body-reader.ts";
import type { PathBindings } from "./path-template.ts";
import { renderRestError, sendJson, sendStatus } from "./render-error.ts";
import { createRouteTable, lookupRoute, type RestRoute } from "./route-table.ts";
import { transcodeRequest } from "./transcode-request.ts";

/**
 * Makes the client stop sending a body the door will not read: HTTP/1.1 closes the connection
 * after the answer; HTTP/2 resets just the stream (NO_ERROR, RFC 9113 §8.1) once it is sent.
 */
function stopUpload(req: HttpRequest, res: HttpResponse): void {
  if (req.httpVersionMajor === 1) {
    res.setHeader("connection", "close");
    return;
  }
  const { stream } = req as Http2ServerRequest;
  stream.once("finish", () => {
    if (!stream.destroyed) stream.close(http2.constants.NGHTTP2_NO_ERROR);
  });
}

/** What the REST door serves and how it learns who calls. */
export interface RestDoorOptions {
  services: BoundService[];
  /**
   * Turns the Authorization header (undefined when absent) into a principal, or throws a
   * LadingError (UNAUTHENTICATED). Not called for the services' anonymous methods when the
   * request carries no Authorization header.
   */
  authenticate(authorization: string | undefined): Promise<Principal>;
  /** Largest request body read, in bytes. Default 1 MiB (`maxBodyBytes`); larger → 413. */
  maxBodyBytes?: number;
}

/** The REST/JSON transcoder over every service's google.api.http annotations. */
export interface RestDoor {
  /**
   * Serves a request whose path some annotation matches and returns true; returns false,
   * writing nothing, when no template matches the path.
   *
   * A path that matches a template of another HTTP method only is answered 405 Method Not
   * Allowed with an `Allow` header listing the methods that path serves and a google.rpc.Status
   * body with code 12 UNIMPLEMENTED, as grpc-gateway does (so HEAD and OPTIONS get 405 too).
   */
  handle(req: HttpRequest, res: HttpResponse, ctx: RouteContext): Promise<boolean>;
}

/**
 * Creates the REST door (DESIGN §2). Per request: match the path template, authenticate (not
 * for anonymous methods, and before the body is read), read at most `maxBodyBytes` of body,
 * build the request message (path variables, JSON body, query parameters), call the same
 * handler the gRPC door calls, answer proto3 JSON (lowerCamel keys, int64 as strings, default
 * values emitted) with status 200. Errors go through `renderRestError`.
 *
 * Partial updates (spec "Partial update", reference §2.3): an `updateMask` / `update_mask`
 * query parameter reaches the handler unchanged (paths in snake_case). Without one, the mask
 * stays empty and `Call.bodyPaths` carries the leaf paths present in the body
 * (`claimMatch: {issuer}` → `claim_match.issuer`); the door does not copy them into the
 * mask, so `updatePaths` can still refuse unknown or output-only paths a caller names while
 * ignoring output-only fields of a read-modify-write body.
 */
export function createRestDoor(options: RestDoorOptions): RestDoor {
  const routes = createRouteTable(options.services);
  const limit = options.maxBodyBytes ?? maxBodyBytes;
  const registry = createRegistry(...options.services.map((s) => s.service.file));
  // Encodings of immutable responses, kept while the service keeps the message.
  const rendered = new WeakMap<object, Buffer>();

  async function serve(
    route: RestRoute,
    bindings: PathBindings,
    query: URLSearchParams,
    req: HttpRequest,
    res: HttpResponse,
    ctx: RouteContext,
  ): Promise<void> {
    // A method open to anonymous callers still checks credentials a caller sends, so it can
    // answer a signed-in caller as such (an organisation's view of vulnerability metadata).
    const anonymous = route.bound.anonymous?.has(route.fullName) ?? false;
    const authorization = req.headers.authorization;
    const principal =
      anonymous && authorization === undefined
        ? undefined
        : await options.authenticate(authorization);
    let body: Buffer | undefined;
    if (route.body !== undefined) {
      const read = await readBody(req, limit);
      if (read.tooLarge) {
        const err = invalidArgument(route.domain, [
          { field: "body", description: `must be at most ${limit} bytes` },
        ]);
        stopUpload(req, res);
        sendStatus(res, err, 413);
        return;
      }
      body = read.bytes;
    }
    const request = transcodeRequest(route, bindings, query, body);
    const call: Call = { principal, requestId: ctx.requestId, signal: ctx.signal };
    if (request.bodyPaths) call.bodyPaths = request.bodyPaths;
    const handler = (route.bound.handlers as Record<string, Handler<typeof route.method>>)[
      route.method.localName
    ];
    const output = create(route.method.output, await handler(request.message, call));
    const cached = rendered.get(output);
    if (cached) {
      sendJson(res, 200, cached);
      return;
    }
    const json = toJsonString(route.method.output, output, { alwaysEmitImplicit: true, registry });
    if (isImmutable(output)) rendered.set(output, Buffer.from(json, "utf8"));
    sendJson(res, 200, json);
  }

  return {
    async handle(req, res, ctx) {
      const target = req.url ?? "/";
      const q = target.indexOf("?");
      const path = q < 0 ? target : target.slice(0, q);
      const query = new URLSearchParams(q < 0 ? "" : target.slice(q + 1));
      const lookup = lookupRoute(routes, req.method ?? "GET", path);
      if (lookup.kind === "none") return false;
      try {
        if (lookup.kind === "wrong-method") {
          res.setHeader("allow", lookup.allowed.join(", "));
          const message = `Method not allowed: ${req.method} ${path} (allowed: ${lookup.allowed.join(", ")})`;
          const err = new LadingError({
            code: Code.Unimplemented,
            message,
            reason: "METHOD_NOT_ALLOWED",
            domain: errorDomain(path.split("/")[1] || "api"),
          });
          sendStatus(res, err, 405);
        } else if (lookup.kind === "bad-path") {
          const violation = { field: lookup.field, description: "is not valid percent-encoding" };
          throw invalidArgument(lookup.route.domain, [violation]);
        } else {
          await serve(lookup.route, lookup.bindings, query, req, res, ctx);
        }
      } catch (err) {
        renderRestError(res, err, ctx.requestId, ctx.log);
      }
      return true;
    },
  };
}
