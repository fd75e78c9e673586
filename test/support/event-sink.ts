import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyDelivery } from "../../src/events/index.ts";

/** One request the sink received, checked as `lading events verify` checks it. */
export interface Receipt {
  /** The request target: path and query. */
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
  /** The verified event's Ce-Id and Ce-Type; undefined when verification failed. */
  id?: string;
  type?: string;
  /** Why verification failed; "" when it passed. */
  refused: string;
  /** The status the sink answered; 0 while it holds the request, -1 if the sender left. */
  status: number;
  /** The request as HTTP/1.1 text, for `lading events verify`. */
  text: string;
  /** The sender's port: which process sent it (the replicas suite). */
  remotePort: number;
}

/** How the sink answers: 200, a status, or 200 after a delay. */
export type SinkMode =
  | { kind: "ok" }
  | { kind: "status"; status: number }
  | { kind: "slow"; ms: number };

/** A real webhook receiver on 127.0.0.1:0 that verifies every delivery (reference §7.3). */
export interface EventSink {
  url: string;
  receipts: Receipt[];
  mode: SinkMode;
  /** Resolves once `predicate` holds of the receipts, or rejects after `timeoutMs`. */
  waitFor(predicate: (receipts: Receipt[]) => boolean, timeoutMs?: number): Promise<void>;
  /** Receipts answered 2xx, verified, of events whose type starts with `prefix`. */
  accepted(prefix?: string): Receipt[];
  close(): Promise<void>;
}

/** Starts a sink that expects deliveries for `group` signed by `issuer`, on `port` or any. */
export async function startEventSink(issuer: string, group: string, port = 0): Promise<EventSink> {
  const receipts: Receipt[] = [];
  const waiters = new Set<() => void>();
  const sink = { mode: { kind: "ok" } as SinkMode } as EventSink;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const checked = await verifyDelivery({ headers: req.headers, body }, { group, issuer });
    const mode = sink.mode;
    const lines = [`${req.method} ${req.url} HTTP/1.1`];
    for (let i = 0; i < req.rawHeaders.length; i += 2)
      lines.push(`${req.rawHeaders[i]}: ${req.rawHeaders[i + 1]}`);
    const receipt: Receipt = {
      url: req.url ?? "",
      headers: req.headers,
      body: body.toString(),
      id: checked.value?.id,
      type: checked.value?.type,
      refused: checked.error?.reason ?? "",
      status: 0,
      text: `${lines.join("\r\n")}\r\n\r\n${body.toString()}`,
      remotePort: req.socket.remotePort ?? 0,
    };
    // Recorded on arrival, so a test sees a request the sink is still holding.
    receipts.push(receipt);
    notify();
    let status = checked.error ? checked.error.status : 200;
    if (!checked.error && mode.kind === "status") status = mode.status;
    if (!checked.error && mode.kind === "slow") await new Promise((r) => setTimeout(r, mode.ms));
    // A sender that gave up before the answer did not get it.
    receipt.status = req.socket.destroyed ? -1 : status;
    res.statusCode = status;
    res.end();
    notify();
  });
  const notify = () => {
    for (const wake of waiters) wake();
  };
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const bound = (server.address() as AddressInfo).port;
  return Object.assign(sink, {
    url: `http://127.0.0.1:${bound}/hook`,
    receipts,
    accepted: (prefix = "") =>
      receipts.filter((r) => r.status === 200 && r.type?.startsWith(prefix)),
    waitFor(predicate: (r: Receipt[]) => boolean, timeoutMs = 15_000) {
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!predicate(receipts)) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `the sink did not see what was expected; got ${receipts.length} receipts: ${JSON.stringify(receipts.map((r) => [r.type, r.status, r.refused]))}`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}
