import { Code } from "@connectrpc/connect";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import type { ConsoleFiles } from "../doors/console/index.ts";
import type { GrpcDoor } from "../doors/grpc/index.ts";
import { type RestDoor, renderRestError, sendJson, sendStatus } from "../doors/rest/index.ts";
import { errorDomain, LadingError } from "../errors/index.ts";
import type { HttpRequest, HttpResponse, RawRoute, RouteContext } from "../rpc/index.ts";
import { createHttpMetrics, type Door, type HttpMetrics } from "./http-metrics.ts";
import { probeAnswer } from "./probes.ts";
import { requestIdOf } from "./request-id.ts";

/** What the API listener serves. */
export interface ApiHandlerOptions {
  rest: RestDoor;
  grpc: GrpcDoor;
  /** Endpoints outside the proto contract (issuer documents, token exchange), matched first. */
  routes?: RawRoute[];
  /** Access log and error log. */
  log: Logger;
  /** Whether `/readyz` answers ready; the caller turns it false once shutdown begins. Default: always. */
  isReady?: () => boolean;
  /** The console's files and client-side routes, asked last (docs/console.md). Default: none. */
  console?: ConsoleFiles;
  /** Where request metrics go. Default: a new registry for this handler. */
  metrics?: HttpMetrics;
  /** The process's metrics (scans, deliveries, storage), served after this listener's. */
  sharedMetrics?: Registry;
}

interface State {
  path: string;
  door: Door;
}

/** A Node request handler for both HTTP versions. */
export type ApiHandler = (req: HttpRequest, res: HttpResponse) => void;

const RPC_PATH = /^\/[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+\/[A-Za-z_][A-Za-z0-9_]*$/;
const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/**
 * The API listener's request handler (DESIGN §1). Every request gets a request id (a valid
 * incoming `x-request-id`, else a random one), echoed in the response and passed to the gRPC
 * door in the request headers. Dispatch order: exact raw routes; `GET /healthz`, `/readyz`,
 * `/metrics`; gRPC, gRPC-Web and Connect (a `/<package>.<Service>/<Method>` path the gRPC door
 * serves, whatever the content type); the REST door; the console (`/`, its files, and pages a
 * browser asks for); else 404 with a google.rpc.Status body. One JSON
 * access-log line per request: requestId, method, path (no query string), status, durationMs,
 * door. Headers and tokens are never logged.
 */
export function createApiHandler(options: ApiHandlerOptions): ApiHandler {
  const { rest, grpc, log } = options;
  const routes = options.routes ?? [];
  const isReady = options.isReady ?? (() => true);
  const metrics = options.metrics ?? createHttpMetrics();

  async function dispatch(
    req: HttpRequest,
    res: HttpResponse,
    ctx: RouteContext,
    state: State,
  ): Promise<void> {
    const { path } = state;
    const method = req.method ?? "GET";
    const route = routes.find((r) => r.method === method && r.path === path);
    if (route) {
      state.door = "route";
      await route.handle(req, res, ctx);
      return;
    }
    const probe = method === "GET" ? probeAnswer(path, isReady) : undefined;
    if (probe) {
      state.door = "probe";
      sendJson(res, probe.status, probe.body);
      return;
    }
    if (method === "GET" && path === "/metrics") {
      state.door = "metrics";
      const own = await metrics.registry.metrics();
      const text = own + ((await options.sharedMetrics?.metrics()) ?? "");
      res.statusCode = 200;
      res.setHeader("content-type", metrics.registry.contentType);
      res.end(text);
      return;
    }
    // By path alone: a gRPC content type on any other path would get the RPC library's bare
    // 404, which no client can read as a google.rpc.Status (gRPC and Connect clients read
    // HTTP 404 as UNIMPLEMENTED either way).
    if (RPC_PATH.test(path) && grpc.serves(path)) {
      state.door = "grpc";
      grpc(req, res);
      return;
    }
    state.door = "rest";
    if (await rest.handle(req, res, ctx)) return;
    state.door = "console";
    if (await options.console?.handle(req, res, path)) return;
    state.door = "none";
    const err = new LadingError({
      code: Code.NotFound,
      message: `Not found: no endpoint ${method} ${path}`,
      reason: "NOT_FOUND",
      domain: errorDomain("api"),
    });
    sendStatus(res, err);
  }

  return (req, res) => {
    const started = performance.now();
    const requestId = requestIdOf(req.headers["x-request-id"]);
    req.headers["x-request-id"] = requestId;
    res.setHeader("x-request-id", requestId);
    const target = req.url ?? "/";
    const q = target.indexOf("?");
    const path = q < 0 ? target : target.slice(0, q);
    const method = METHODS.has(req.method ?? "") ? (req.method as string) : "OTHER";
    const controller = new AbortController();
    const state: State = { path, door: "none" };
    res.once("close", () => {
      const aborted = !res.writableFinished;
      if (aborted) controller.abort();
      const seconds = (performance.now() - started) / 1000;
      metrics.observe(state.door, method, res.statusCode, seconds);
      const durationMs = Math.round(seconds * 1e4) / 10;
      const line = {
        requestId,
        method,
        path,
        status: res.statusCode,
        durationMs,
        door: state.door,
      };
      log.info(aborted ? { ...line, aborted } : line, "request");
    });
    const ctx: RouteContext = {
      requestId,
      log: log.child({ requestId }),
      signal: controller.signal,
    };
    dispatch(req, res, ctx, state).catch((err: unknown) =>
      renderRestError(res, err, requestId, log),
    );
  };
}
