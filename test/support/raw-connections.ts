import net, { type Socket } from "node:net";
import tls from "node:tls";

/** The HTTP/2 connection preface, then an empty SETTINGS frame: a client that asks nothing. */
export const h2Hello = Buffer.concat([
  Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"),
  h2Frame(0x4, 0, 0, Buffer.alloc(0)),
]);

/** One HTTP/2 frame (RFC 9113 §4.1). */
export function h2Frame(type: number, flags: number, streamId: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head.writeUInt8(type, 3);
  head.writeUInt8(flags, 4);
  head.writeUInt32BE(streamId, 5);
  return Buffer.concat([head, payload]);
}

/**
 * A HEADERS frame for stream 1 without END_HEADERS: a header block the server must wait on for
 * a CONTINUATION that never comes. The one byte is HPACK's indexed `:method: GET`.
 */
export const h2UnfinishedHeaders = h2Frame(0x1, 0, 1, Buffer.from([0x82]));

const opened = new Set<Socket>();

/** Destroys every raw connection still open, so that a failed test does not keep its process alive. */
export function destroyRawConnections(): void {
  for (const socket of opened) socket.destroy();
}

/** A raw connection and what the server did with it. */
export interface RawConnection {
  socket: Socket;
  /** Everything the server sent. */
  received(): string;
  /** Resolves when the server has closed the connection, with the time it took since `since`. */
  closed: Promise<number>;
}

/**
 * Connects to 127.0.0.1:`port` (over TLS with `ca`, offering `alpn`) and resolves once
 * connected (for TLS: once the handshake is done). With `allowHalfOpen` a cleartext connection
 * goes on sending after the server's FIN, as HTTP clients still sending a body do.
 */
export async function connectRaw(
  port: number,
  options: { ca?: string; alpn?: string[]; allowHalfOpen?: boolean } = {},
): Promise<RawConnection> {
  const started = Date.now();
  const { ca, alpn: ALPNProtocols, allowHalfOpen } = options;
  const socket = ca
    ? tls.connect({ host: "127.0.0.1", port, ca, ALPNProtocols })
    : net.connect({ host: "127.0.0.1", port, allowHalfOpen });
  opened.add(socket);
  socket.once("close", () => opened.delete(socket));
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  socket.on("error", () => {});
  const closed = new Promise<number>((resolve) =>
    socket.once("close", () => resolve(Date.now() - started)),
  );
  await new Promise<void>((resolve, reject) => {
    socket.once(ca ? "secureConnect" : "connect", () => resolve());
    socket.once("close", () => reject(new Error("closed before connecting")));
  });
  return { socket, received: () => Buffer.concat(chunks).toString("latin1"), closed };
}

/** Resolves with `promise`'s value, or with "timed out" after `ms`. */
export function within<T>(promise: Promise<T>, ms: number): Promise<T | "timed out"> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<"timed out">((resolve) => {
    timer = setTimeout(() => resolve("timed out"), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
