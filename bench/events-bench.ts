import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { performance } from "node:perf_hooks";
import { recordEvent } from "../src/events/index.ts";
import { startTestServer } from "../test/support/server.ts";

/** One measured number. */
export interface EventsMeasurement {
  store: string;
  workload: string;
  events: number;
  deliveries: number;
  seconds: number;
}

/** A sink that counts what it receives (answering 204) and says when it has `expected`. */
async function countingSink() {
  let count = 0;
  let target = Number.POSITIVE_INFINITY;
  let reached = () => {};
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.statusCode = 204;
      res.end();
      if (++count === target) reached();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    reset(expected: number) {
      count = 0;
      target = expected;
      return new Promise<void>((resolve) => {
        reached = resolve;
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Events end to end, API or transaction → sink receipt: `count` `:test` pings through the REST
 * API to one subscription (every delivery waits for the one before: per-subscription order),
 * then `count` events recorded in their own transactions fanned out to 8 subscriptions.
 */
export async function measureEvents(
  kind: "sqlite" | "postgres",
  count: number,
  log: (line: string) => void,
): Promise<EventsMeasurement[]> {
  const server = await startTestServer(kind, "acme", { outboundAllow: "127.0.0.1" });
  const sink = await countingSink();
  const rows: EventsMeasurement[] = [];
  try {
    const org = server.org.groupUid;
    const headers = {
      authorization: `Bearer ${server.org.token}`,
      "content-type": "application/json",
    };
    const create = async () => {
      const res = await fetch(`${server.apiUrl}/events/v2/subscriptions/${org}`, {
        method: "POST",
        headers,
        body: JSON.stringify({ sink: sink.url, typePrefix: "dev.lading.bench." }),
      });
      return ((await res.json()) as { uid: string }).uid;
    };

    const first = await create();
    const pings = sink.reset(count);
    log(`events on ${kind}: ${count} :test calls to one subscription…`);
    let started = performance.now();
    const queue = [...Array(count).keys()];
    await Promise.all(
      [...Array(8)].map(async () => {
        while (queue.pop() !== undefined) {
          const res = await fetch(`${server.apiUrl}/events/v2/subscriptions/${first}:test`, {
            method: "POST",
            headers,
            body: "{}",
          });
          if (!res.ok) throw new Error(`:test answered ${res.status}`);
          await res.arrayBuffer();
        }
      }),
    );
    await pings;
    rows.push({
      store: kind,
      workload: ":test via REST → 1 subscription",
      events: count,
      deliveries: count,
      seconds: (performance.now() - started) / 1000,
    });

    for (let i = 1; i < 8; i++) await create();
    const fanned = sink.reset(count * 8);
    log(`events on ${kind}: ${count} recorded events to 8 subscriptions…`);
    started = performance.now();
    const db = server.lading.store.db;
    for (let n = 0; n < count; n++) {
      await db.transaction().execute((trx) =>
        recordEvent(trx, {
          type: "dev.lading.bench.recorded.v1",
          source: "https://lading.example/bench",
          subject: org,
          groupUid: org,
          actor: { subject: server.org.identityUid },
          body: { n },
        }),
      );
    }
    await fanned;
    rows.push({
      store: kind,
      workload: "recordEvent → 8 subscriptions",
      events: count,
      deliveries: count * 8,
      seconds: (performance.now() - started) / 1000,
    });
  } finally {
    await server.close();
    await sink.close();
  }
  return rows;
}
