import http from "node:http";
import http2 from "node:http2";
import net, { type AddressInfo, type Socket } from "node:net";
import type { HttpRequest, HttpResponse } from "../rpc/index.ts";

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
/** A connection that sends nothing for this long is dropped, like Node's headersTimeout. */
const FIRST_BYTES_TIMEOUT_MS = 60_000;

/**
 * Creates a listener (DESIGN §1). Cleartext: a net.Server sniffs the first bytes of each
 * connection for the HTTP/2 preface and hands the socket to an http2 or an http server. TLS:
 * one http2 secure server with `allowHTTP1`. Sockets and sessions are tracked here so that
 * shutdown is graceful without relying on either server's own bookkeeping.
 */
export function createListener(options: ListenerOptions): Listener {
  const connections = new Set<Socket>();
  const sniffing = new Set<Socket>();
  const h1Sockets = new Map<Socket, { active: number }>();
  const sessions = new Set<http2.ServerHttp2Session>();
  let closing = false;

  const trackH1 = (socket: Socket) => {
    if (closing) {
      socket.destroy();
      return;
    }
    h1Sockets.set(socket, { active: 0 });
    socket.once("close", () => h1Sockets.delete(socket));
  };
  const trackSession = (session: http2.ServerHttp2Session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
    if (closing) session.close();
  };
  const onRequest = (req: HttpRequest, res: HttpResponse) => {
    if (req.httpVersionMajor === 1) {
      const socket = req.socket as Socket;
      const state = h1Sockets.get(socket);
      if (state) {
        state.active++;
        res.once("close", () => {
          state.active--;
          if (closing && state.active === 0) socket.end();
        });
      }
      if (closing) res.setHeader("connection", "close");
    }
    options.handler(req, res);
  };

  let server: net.Server;
  if (options.tls) {
    const secure = http2.createSecureServer({ ...options.tls, allowHTTP1: true }, onRequest);
    secure.on("secureConnection", (socket: Socket & { alpnProtocol?: string | false }) => {
      if (socket.alpnProtocol !== "h2") trackH1(socket);
    });
    secure.on("session", trackSession);
    server = secure;
  } else {
    const h1 = http.createServer(onRequest);
    const h2 = http2.createServer(onRequest);
    h2.on("session", trackSession);
    server = net.createServer((socket) => {
      sniffing.add(socket);
      sniff(socket, (isH2) => {
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
  server.on("connection", (socket: Socket) => {
    connections.add(socket);
    socket.once("close", () => connections.delete(socket));
  });

  return {
    listen(host, port) {
      return new Promise((resolve, reject) => {
        server.once("error", reject);
        server.listen(port, host, () => {
          server.off("error", reject);
          resolve(server.address() as AddressInfo);
        });
      });
    },
    close({ timeoutMs = 10_000 } = {}) {
      closing = true;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const session of sessions) session.close();
      for (const [socket, state] of h1Sockets) if (state.active === 0) socket.destroy();
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
 * hands the socket over, paused; drops a connection that stays silent. The HTTP/2 branch must
 * not resume the socket: the http2 session takes the buffered bytes itself.
 */
function sniff(socket: Socket, handOver: (isH2: boolean) => void): void {
  let head = Buffer.alloc(0);
  const onError = () => socket.destroy();
  socket.setTimeout(FIRST_BYTES_TIMEOUT_MS);
  socket.once("timeout", onError);
  const onData = (chunk: Buffer) => {
    head = Buffer.concat([head, chunk]);
    const n = Math.min(head.length, PREFACE.length);
    const isH2 = head.subarray(0, n).equals(PREFACE.subarray(0, n));
    if (isH2 && head.length < PREFACE.length) return;
    socket.off("data", onData);
    socket.off("error", onError);
    socket.off("timeout", onError);
    socket.setTimeout(0);
    socket.pause();
    socket.unshift(head);
    handOver(isH2);
  };
  socket.on("data", onData);
  socket.on("error", onError);
}
