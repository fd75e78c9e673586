import http2, {
  type Http2ServerRequest,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from "node:http2";
import type { ConnectionLimits } from "../config/index.ts";
import { DRAIN_MS } from "./http1-connection.ts";

/** Streams one session may have open at once (Node's default is unlimited); nginx uses 128. */
export const MAX_CONCURRENT_STREAMS = 100;
/** How often a stream answered early looks whether its answer has left. */
const ANSWER_CHECK_MS = 20;

/**
 * Applies {@link ConnectionLimits} to one HTTP/2 session. A session with no stream open is
 * ended (GOAWAY, then the connection closes) when its deadline passes: the headers timeout from
 * its start, the keep-alive timeout from its last stream's end. The deadline is not moved by
 * frames that open no stream (PING, SETTINGS, a header block that never ends), so none of them
 * keeps a session alive. `destroy()`, not `close()`: with no stream open both send the same
 * GOAWAY, but `close()` waits forever on a header block left unfinished.
 */
export function watchHttp2Session(session: ServerHttp2Session, limits: ConnectionLimits): void {
  let open = 0;
  let deadline: NodeJS.Timeout | undefined;
  const arm = (ms: number) => {
    clearTimeout(deadline);
    deadline = setTimeout(() => {
      if (open === 0 && !session.destroyed) session.destroy();
    }, ms);
    deadline.unref();
  };
  arm(limits.headersTimeoutMs);
  session.on("stream", (stream) => {
    open++;
    clearTimeout(deadline);
    stream.once("close", () => {
      if (--open === 0 && !session.closed && !session.destroyed) arm(limits.keepAliveTimeoutMs);
    });
  });
  session.once("close", () => clearTimeout(deadline));
}

/**
 * Watches the body of an HTTP/2 request. A body that brings no frame for `requestIdleTimeoutMs`
 * while the server waits for it cancels the stream (RST_STREAM CANCEL), which fails the
 * handler's read and frees what it holds; bytes the handler has not read yet mean the server is
 * behind, so they do not count as a stall. See {@link endAfterAnswer} for answers that do not
 * wait for the body.
 */
export function watchHttp2Request(req: Http2ServerRequest, idleMs: number): void {
  const { stream } = req;
  if (stream.endAfterHeaders) return;
  stream.setTimeout(idleMs);
  stream.on("timeout", () => {
    if (bodyDone(stream)) {
      stream.setTimeout(0);
    } else if (req.readableLength > 0 || stream.readableLength > 0) {
      stream.setTimeout(idleMs);
    } else {
      stream.close(http2.constants.NGHTTP2_CANCEL);
    }
  });
  stream.once("finish", () => {
    if (!bodyDone(stream)) endAfterAnswer(stream);
  });
}

const bodyDone = (stream: ServerHttp2Stream) => stream.destroyed || stream.state.remoteClose === 1;

/**
 * The answer is written while the body is still coming: once the answer has left whole (its
 * END_STREAM sent, which for gRPC is on the trailers, sent after 'finish'), the stream ends
 * with RST_STREAM NO_ERROR (RFC 9113 §8.1), so the client stops sending and the stream does not
 * sit behind a full flow-control window. After {@link DRAIN_MS} it ends regardless.
 */
function endAfterAnswer(stream: ServerHttp2Stream): void {
  const until = Date.now() + DRAIN_MS;
  const timer = setInterval(() => {
    if (bodyDone(stream) || stream.closed) {
      clearInterval(timer);
    } else if (stream.state.localClose === 1 || Date.now() > until) {
      clearInterval(timer);
      stream.close(http2.constants.NGHTTP2_NO_ERROR);
    }
  }, ANSWER_CHECK_MS);
  timer.unref();
}
