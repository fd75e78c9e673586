import http, { type IncomingMessage, type ServerResponse } from "node:http";
import http2 from "node:http2";
import net, { type AddressInfo, type Socket } from "node:net";
import { type ConnectionLimits, defaultConnectionLimits } from "../config/index.ts";
import type { HttpRequest, HttpResponse } from "../rpc/index.ts";
import {
  answerClientError,
  type Http1Connection,
  watchHttp1Connection,
} from "./http1-connection.ts";
import { MAX_CONCURRENT_STREAMS, watchHttp2Request, watchHttp2Session } from "./http2-session.ts";

/** A PEM certificate chain and its private key. */
export interface TlsOptions {
  cert: string;
  key: string;
}

/** What a listener serves and how. */
export interface ListenerOptions {
  /** Called for every request, HTTP/1.1 and HTTP/2 alike. */
  handler(req: HttpRequest, res: HttpResponse): void;
  /**
   * With a certificate the port speaks TLS and picks HTTP/1.1 or h2 by ALPN; without one it
   * speaks cleartext HTTP/1.1 and HTTP/2 with prior knowledge (h2c) on the same port.
   */
  tls?: TlsOptions;
  /** Timeouts and the connection cap; each absent one is its default ({@link defaultConnectionLimits}). */
  limits?: Partial<ConnectionLimits>;
  /**
   * Told when accepting a connection fails (EMFILE when descriptors run out, and the like), at
   * most once a second; the listener goes on serving either way. Default: not told.
   */
  onAcceptError?(error: Error): void;
}

/** Options of a graceful shutdown. */
export interface CloseOptions {
  /** How long requests in flight may take before their connections are destroyed. Default 10 s. */
  timeoutMs?: number;
}

/** One port serving HTTP/1.1 and HTTP/2. */
export interface Listener {
  /** Starts listening; resolves to the bound address (port 0 picks a free port). */
  listen(host: string, port: number): Promise<AddressInfo>;
  /**
   * Stops accepting connections, lets requests in flight finish, closes idle keep-alive
   * connections at once and the others as they become idle, sends GOAWAY to HTTP/2 sessions,
   * and destroys whatever remains after `timeoutMs`. Resolves once every connection is gone.
   */
  close(options?: CloseOptions): Promise<void>;
}

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
/** Accept errors come in bursts while descriptors run out; one report a second is enough. */
const ACCEPT_ERROR_REPORT_MS = 1_000;

/**
 * Creates a listener (DESIGN §1). Cleartext: a net.Server sniffs the first bytes of each
 * connection for the HTTP/2 preface and hands the socket to an http2 or an http server. TLS:
 * one http2 secure server with `allowHTTP1`. Sockets and sessions are tracked here so that
 * shutdown is graceful without relying on either server's own bookkeeping, and so are the
 * timeouts of {@link ConnectionLimits} (see http1-connection.ts and http2-session.ts).
 */
export function createListener(options: ListenerOptions): Listener {
  const limits: ConnectionLimits = { ...defaultConnectionLimits, ...options.limits };
  const connections = new Set<Socket>();
  const sniffing = new Set<Socket>();
  const h1Sockets = new Map<Socket, Http1Connection>();
  const sessions = new Set<http2.ServerHttp2Session>();
  let closing = false;

  const trackH1 = (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    const onIdle = () => {
      if (closing) socket.end();
    };
    h1Sockets.set(socket, watchHttp1Connection(socket, limits, onIdle));
    socket.once("close", () => h1Sockets.delete(socket));
  };
  const trackSession = (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    watchHttp2Session(session, limits);
    if (closing) session.close();
  };
  const onRequest = (req: HttpRequest, res: HttpResponse) => {
    if (req.httpVersionMajor === 1) {
      h1Sockets.get(req.socket as Socket)?.watch(req as IncomingMessage, res as ServerResponse);
      if (closing) res.setHeader("connection", "close");
    } else {
      watchHttp2Request(req as http2.Http2ServerRequest, limits);
    }
    options.handler(req, res);
  };
  // Node's requestTimeout bounds a whole request and would cut a slow but moving blob upload;
  // the headers timeout is enforced per connection instead (http1-connection.ts).
  const h1Options = {
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    requestTimeout: 0,
    headersTimeout: 0,
  };
  const h2Options = { settings: { maxConcurrentStreams: MAX_CONCURRENT_STREAMS } };

  let server: net.Server;
  if (options.tls) {
    const secure = http2.createSecureServer(
      { ...options.tls, ...h2Options, allowHTTP1: true, handshakeTimeout: limits.headersTimeoutMs },
      onRequest,
    );
    // Its HTTP/1.1 fallback reads these from the server object; createSecureServer ignores them.
    Object.assign(secure, h1Options);
    secure.on("secureConnection", (socket: Socket & { alpnProtocol?: string | false }) => {
      if (socket.alpnProtocol !== "h2") trackH1(socket);
    });
    secure.on("session", trackSession);
    secure.on("clientError", answerClientError);
    server = secure;
  } else {
    const h1 = http.createServer(h1Options, onRequest);
    h1.on("clientError", answerClientError);
    const h2 = http2.createServer(h2Options, onRequest);
    h2.on("session", trackSession);
    server = net.createServer((socket) => {
      sniffing.add(socket);
      sniff(socket, limits.headersTimeoutMs, (isH2) => {
        sniffing.delete(socket);
        if (isH2) {
          h2.emit("connection", socket);
          return;
        }
        trackH1(socket);
        h1.emit("connection", socket);
        socket.resume();
      });
    });
  }
  server.maxConnections = limits.maxConnections;
  server.on("connection", (socket: Socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
  });
  let reportedAt = Number.NEGATIVE_INFINITY;
  const onAcceptError = (error: Error) => {
    if (Date.now() - reportedAt < ACCEPT_ERROR_REPORT_MS) return;
    reportedAt = Date.now();
    options.onAcceptError?.(error);
  };

  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          // Without a listener an accept error (EMFILE) would be thrown and end the process;
          // libuv keeps listening and accepts again once descriptors are free.
          server.on("error", onAcceptError);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    close({ timeoutMs = 10_000 } = {}) {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      for (const [socket, connection] of h1Sockets) if (connection.active === 0) socket.destroy();
      for (const socket of sniffing) socket.destroy();
      const timer = setTimeout(() => {
        for (const session of sessions) session.destroy();
        for (const socket of connections) socket.destroy();
      }, timeoutMs);
      return closed.finally(() => clearTimeout(timer));
    },
  };
}

/**
 * Reads until the first bytes tell HTTP/2 prior knowledge from HTTP/1.x, puts them back and
 * hands the socket over, paused; drops a connection that has not told within `timeoutMs`. The
 * HTTP/2 branch must not resume the socket: the http2 session takes the buffered bytes itself.
 */
function sniff(socket: Socket, timeoutMs: number, handOver: (isH2: boolean) => void): void {
  let head = Buffer.alloc(0);
  const onError = () => socket.destroy();
  const timer = setTimeout(onError, timeoutMs);
  timer.unref();
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const n = Math.min(head.length, PREFACE.length);
    const isH2 = head.subarray(0, n).equals(PREFACE.subarray(0, n));
    if (isH2 && head.length < PREFACE.length) return;
    socket.off("data", onData);
    socket.off("error", onError);
    clearTimeout(timer);
    socket.pause();
    socket.unshift(head);
    handOver(isH2);
  };
  socket.on("data", onData);
  socket.on("error", onError);
  socket.once("close", () => clearTimeout(timer));
}
