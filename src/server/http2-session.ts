import http2, {
  type Http2ServerRequest,
  type ServerHttp2Session,
  type ServerHttp2Stream,
} from "node:http2";
import type { ConnectionLimits } from "../config/index.ts";
import { watchBody } from "./body-watch.ts";
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
 * Holds the body of an HTTP/2 request to the body limits ({@link watchBody}); a body that breaks
 * one cancels the stream (RST_STREAM CANCEL), which fails the handler's read and frees what it
 * holds, while the session's other streams go on. See {@link endAfterAnswer} for answers that do
 * not wait for the body.
 */
export function watchHttp2Request(req: Http2ServerRequest, limits: ConnectionLimits): void {
  const { stream } = req;
  if (stream.endAfterHeaders) return;
  const watch = watchBody(
    req,
    {
      received: countReceived(stream),
      behind: () => req.readableLength > 0 || stream.readableLength > 0,
      done: () => bodyDone(stream),
      cut: () => stream.close(http2.constants.NGHTTP2_CANCEL),
    },
    limits,
  );
  stream.once("finish", () => {
    if (bodyDone(stream)) return;
    watch.answered();
    endAfterAnswer(stream);
  });
}

/**
 * The body bytes `stream` has received so far. Node hands each DATA frame's bytes to the
 * stream's `push`, which is wrapped to count them: a 'data' listener would start the stream
 * flowing before the request reads it (the compatibility layer attaches its own on first read).
 */
function countReceived(stream: ServerHttp2Stream): () => number {
  let received = 0;
  const push = stream.push;
  stream.push = function (this: ServerHttp2Stream, chunk: unknown, encoding?: BufferEncoding) {
    if (chunk) received += (chunk as Uint8Array).length;
    return push.call(this, chunk, encoding);
  };
  return () => received;
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
