import http2 from "node:http2";
import { Code, ConnectError } from "@connectrpc/connect";
import type { UniversalHandler } from "@connectrpc/connect/protocol";
import {
  universalRequestFromNodeRequest,
  universalResponseToNodeResponse,
} from "@connectrpc/connect-node";
import type { Logger } from "pino";
import type { HttpRequest, HttpResponse } from "../../rpc/index.ts";

/**
 * A Node request handler serving `handlers` by path. It does what connect-node's adapter does,
 * with one difference: a handler that fails, or an answer that fails while it is written, still
 * ends the exchange. connect-node's adapter only logs such a failure and leaves the response
 * open, so the client waits for an answer that never comes while the connection stays taken
 * (a Connect error rewrite that threw did exactly that). Here the failure is logged with the
 * request id and answered as INTERNAL in the protocol's form if nothing was sent yet; a response
 * already under way is reset, so the client learns at once.
 */
export function createNodeAdapter(
  handlers: readonly UniversalHandler[],
  log: Logger,
): (req: HttpRequest, res: HttpResponse) => void {
  const paths = new Map(handlers.map((h) => [h.requestPath, h]));
  return (req, res) => {
    const handler = paths.get((req.url ?? "").split("?", 1)[0]);
    if (!handler) {
      res.statusCode = 404;
      res.end();
      return;
    }
    // The library builds the request URL from it; HTTP/1.0 may leave it out.
    if (!("authority" in req) && req.headers.host === undefined) req.headers.host = "localhost";
    Promise.resolve()
      .then(() => handler(universalRequestFromNodeRequest(req, res, undefined, undefined)))
      .then((response) => universalResponseToNodeResponse(response, res))
      .catch((reason: unknown) => answerFailure(req, res, reason, log));
  };
}

/** Ends an exchange whose handler or answer failed (see {@link createNodeAdapter}). */
function answerFailure(req: HttpRequest, res: HttpResponse, reason: unknown, log: Logger): void {
  if (res.writableFinished) return;
  const gone = "stream" in res ? res.stream.destroyed : (res.socket?.destroyed ?? true);
  // The client went away: nothing to answer, nothing to report.
  if (gone || ConnectError.from(reason).code === Code.Aborted) {
    if (!gone) reset(res);
    return;
  }
  const requestId = String(req.headers["x-request-id"] ?? "");
  log.error({ err: reason, requestId }, "RPC answer failed");
  if (res.headersSent || res.writableEnded) {
    reset(res);
    return;
  }
  const message = `internal error (request id ${requestId})`;
  const type = String(req.headers["content-type"] ?? "");
  if (type.startsWith("application/grpc")) {
    // A trailers-only answer: gRPC and gRPC-Web clients read the status from the headers.
    res.statusCode = 200;
    res.setHeader(
      "content-type",
      type.startsWith("application/grpc-web") ? type : "application/grpc",
    );
    res.setHeader("grpc-status", String(Code.Internal));
    res.setHeader("grpc-message", encodeURIComponent(message));
    res.end();
    return;
  }
  const body = JSON.stringify({ code: "internal", message });
  res.statusCode = 500;
  res.setHeader("content-type", "application/json");
  res.setHeader("content-length", Buffer.byteLength(body));
  res.end(body);
}

/** Cuts an answer under way: HTTP/2 resets the stream (INTERNAL_ERROR), HTTP/1.1 the connection. */
function reset(res: HttpResponse): void {
  if ("stream" in res) res.stream.close(http2.constants.NGHTTP2_INTERNAL_ERROR);
  else res.destroy();
}
