import type { IncomingMessage, ServerResponse } from "node:http";
import type { Socket } from "node:net";
import type { ConnectionLimits } from "../config/index.ts";
import { type BodyWatch, watchBody } from "./body-watch.ts";

/** What Node itself answers when request headers do not arrive in time. */
const REQUEST_TIMEOUT = "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n";

/**
 * After an early answer, at most this much of the rest of the body is read and discarded (within
 * the body limits): enough for any body the API refuses (limit 1 MiB) to arrive whole, and for a
 * refused library form of 100,000 parts.
 */
const DRAIN_BYTES = 8 * 1024 * 1024;
/** How long a refused request head, or an HTTP/2 answer that has not left, is waited on. */
export const DRAIN_MS = 5_000;
/** How often a drain checks its bounds. */
const DRAIN_TICK_MS = 50;

/** One HTTP/1.1 connection as the listener sees it. */
export interface Http1Connection {
  /** Requests whose answers are not finished. */
  readonly active: number;
  /** Watches a request of this connection until its answer is finished. */
  watch(req: IncomingMessage, res: ServerResponse): void;
}

/**
 * Applies {@link ConnectionLimits} to one HTTP/1.1 connection. The http.Server never listens
 * (the listener hands it sockets), so Node's own headersTimeout checks never run; and its
 * requestTimeout bounds a whole request, which would cut a slow but healthy blob upload. So:
 *
 * - headers: a deadline from the hand-over, and again from each moment the connection has no
 *   request in flight (then keep-alive plus headers timeout), cleared when a request's headers
 *   are complete. On expiry a connection that sent part of a request gets Node's 408.
 * - bodies: held to the idle timeout, and unless the request is an authenticated upload to the
 *   body deadline and minimum rate ({@link watchBody}); one that breaks a limit cuts the
 *   connection, which fails the handler's read and frees what it holds.
 * - keep-alive: Node's `keepAliveTimeout` (set by the listener) closes silent idle connections.
 * - early answers: see {@link drainAfterAnswer}.
 *
 * `onIdle` runs whenever the last answer in flight is finished.
 */
export function watchHttp1Connection(
  socket: Socket,
  limits: ConnectionLimits,
  onIdle: () => void,
): Http1Connection {
  let active = 0;
  let bytesAtRequest = 0;
  let deadline: NodeJS.Timeout | undefined;
  const expire = () => {
    if (active > 0 || socket.destroyed) return;
    // Bytes since the last request's headers: the next request has begun (a silent connection
    // is closed earlier, by Node's keep-alive timeout).
    if (socket.bytesRead > bytesAtRequest && socket.writable) {
      socket.end(REQUEST_TIMEOUT, () => socket.destroy());
    } else {
      socket.destroy();
    }
  };
  const arm = (ms: number) => {
    clearTimeout(deadline);
    deadline = setTimeout(expire, ms);
    deadline.unref();
  };
  arm(limits.headersTimeoutMs);
  socket.once("close", () => clearTimeout(deadline));

  return {
    get active() {
      return active;
    },
    watch(req, res) {
      active++;
      bytesAtRequest = socket.bytesRead;
      clearTimeout(deadline);
      const body = hasBody(req) ? watchHttp1Body(socket, req, limits) : undefined;
      res.once("finish", () => {
        if (body && !req.complete) drainAfterAnswer(socket, req, body);
      });
      res.once("close", () => {
        if (--active > 0) return;
        arm(limits.keepAliveTimeoutMs + limits.headersTimeoutMs);
        onIdle();
      });
    },
  };
}

/** HTTP/1.1 requests have a body only when they say so (RFC 9112 §6.3). */
function hasBody(req: IncomingMessage): boolean {
  const length = req.headers["content-length"];
  return req.headers["transfer-encoding"] !== undefined || (length !== undefined && length !== "0");
}

/**
 * Holds the body of `req` to the body limits ({@link watchBody}); a body that breaks one
 * closes the connection, which fails the handler's read and frees what it holds. The socket's
 * byte count is the body's: requests on one connection come one after another.
 */
function watchHttp1Body(socket: Socket, req: IncomingMessage, limits: ConnectionLimits) {
  return watchBody(
    req,
    {
      received: () => socket.bytesRead,
      behind: () => req.readableLength > 0,
      done: () => req.complete || socket.destroyed,
      cut: () => socket.destroy(),
    },
    limits,
  );
}

/**
 * An answer went out while the client is still sending its body (a 413, a 401 on a blob
 * PATCH, a form refused at its 1001st part). Node then either keeps the connection and reads
 * the rest without bound, or, when the answer closes the connection, destroys the socket as
 * soon as the answer is written: with body bytes still unread the kernel resets the connection,
 * and a client busy sending (pip, twine) fails with EPIPE or ECONNRESET without reading the
 * answer. Instead the rest of the body is read and discarded, at most {@link DRAIN_BYTES}, under
 * the body limits (`watch`, told of the answer); a closing connection closes once the body has
 * arrived (the reset-free way, like nginx's lingering close), and one past the bounds is cut.
 */
function drainAfterAnswer(socket: Socket, req: IncomingMessage, watch: BodyWatch): void {
  watch.answered();
  // Node's destroySoon() has ended the socket and waits for 'finish' to destroy it.
  const closing = socket.listeners("finish").includes(socket.destroy);
  if (closing) socket.removeListener("finish", socket.destroy);
  const startBytes = socket.bytesRead;
  const done = () => {
    clearInterval(timer);
    if (!closing || socket.destroyed) return;
    if (socket.writableFinished) socket.destroy();
    else socket.once("finish", () => socket.destroy());
  };
  const timer = setInterval(() => {
    if (socket.destroyed || req.complete) return done();
    if (socket.bytesRead - startBytes > DRAIN_BYTES) {
      clearInterval(timer);
      socket.destroy();
    }
  }, DRAIN_TICK_MS);
  timer.unref();
  req.once("end", done);
  // Read whichever way the handler was reading: a 'readable' listener (say, of an async
  // iterator the handler left when it refused the body) makes resume() do nothing, and the
  // body would sit unread until the connection was cut.
  const discard = () => {
    while (req.read() !== null);
  };
  req.on("readable", discard);
  discard();
}

const clientErrorStatus: Record<string, string> = {
  HPE_HEADER_OVERFLOW: "431 Request Header Fields Too Large",
};

/**
 * Answers a request Node's parser refused (a head over the size limit, malformed syntax) and
 * closes the connection without a reset. Node's own answer destroys the socket as soon as it is
 * written, so a client still sending a long head often reads a reset instead of the 431; here
 * the answer is sent, our side half-closed, and what the client still sends is read and
 * discarded, at most {@link DRAIN_BYTES} for at most {@link DRAIN_MS}.
 */
export function answerClientError(error: Error & { code?: string }, socket: Socket): void {
  // Only the HTTP parser's refusals get an answer; anything else (a reset, a TLS handshake that
  // never came) leaves nothing to answer.
  if (!socket.writable || !error.code?.startsWith("HPE_")) {
    socket.destroy();
    return;
  }
  const status = clientErrorStatus[error.code ?? ""] ?? "400 Bad Request";
  socket.removeAllListeners("data");
  const startBytes = socket.bytesRead;
  const until = Date.now() + DRAIN_MS;
  const timer = setInterval(() => {
    if (socket.destroyed) clearInterval(timer);
    else if (socket.bytesRead - startBytes > DRAIN_BYTES || Date.now() > until) {
      clearInterval(timer);
      socket.destroy();
    }
  }, DRAIN_TICK_MS);
  timer.unref();
  socket.on("data", () => {});
  socket.once("end", () => socket.destroy());
  socket.once("close", () => clearInterval(timer));
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
  socket.resume();
}
