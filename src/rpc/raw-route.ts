import type { IncomingMessage, ServerResponse } from "node:http";
import type { Http2ServerRequest, Http2ServerResponse } from "node:http2";
import type { Logger } from "pino";

/** A request on either HTTP version. */
export type HttpRequest = IncomingMessage | Http2ServerRequest;
/** A response on either HTTP version. */
export type HttpResponse = ServerResponse | Http2ServerResponse;

/** Per-request context the server hands to a raw route. */
export interface RouteContext {
  requestId: string;
  log: Logger;
  signal: AbortSignal;
}

/**
 * An HTTP endpoint outside the proto contract (issuer documents, token exchange, probes).
 * A LadingError thrown by `handle` is rendered as a google.rpc.Status JSON body.
 */
export interface RawRoute {
  method: "GET" | "POST";
  /** Exact path, no query. */
  path: string;
  handle(req: HttpRequest, res: HttpResponse, ctx: RouteContext): Promise<void>;
}
