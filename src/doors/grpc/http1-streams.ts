import type { HttpRequest, HttpResponse } from "../../rpc/index.ts";

const message = "bidirectional streaming methods need HTTP/2";

/**
 * Answers a call to a bidirectional-streaming method (server reflection) that arrives over
 * HTTP/1.1, where it cannot run. The RPC library answers 505, a server-fault status for what is
 * the client's choice of protocol, so the door answers FAILED_PRECONDITION in each protocol's
 * own form instead: gRPC-Web as a trailers-only answer, Connect as an error body (HTTP 400).
 */
export function refuseStreamOverHttp1(req: HttpRequest, res: HttpResponse): void {
  const type = String(req.headers["content-type"] ?? "");
  if (type.startsWith("application/grpc")) {
    res.statusCode = 200;
    res.setHeader(
      "content-type",
      type.startsWith("application/grpc-web") ? type : "application/grpc",
    );
    res.setHeader("grpc-status", "9");
    res.setHeader("grpc-message", encodeURIComponent(message));
    res.end();
    return;
  }
  const body = JSON.stringify({ code: "failed_precondition", message });
  res.statusCode = 400;
  res.setHeader("content-type", "application/json");
  res.setHeader("content-length", Buffer.byteLength(body));
  res.end(body);
}
