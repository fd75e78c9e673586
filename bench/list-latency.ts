import { performance } from "node:perf_hooks";
import type { TestServer } from "../test/support/server.ts";
import { startTestServer } from "../test/support/server.ts";

/** One measured workload. */
export interface Measurement {
  store: string;
  workload: string;
  requests: number;
  p50: number;
  p99: number;
  target: number;
}

const requests = 1_000;
/** Concurrent creates while seeding: a busy CI job's worth, not a bulk loader. */
const seedConcurrency = 8;

/**
 * List latency as a user meets it: `identities` identities created one by one through the REST
 * API in a subgroup of the organisation, then sequential `fetch` calls for a page of 50 with
 * totalCount. No maintenance runs besides what Lading runs itself (SQLite's `PRAGMA optimize`,
 * PostgreSQL's autovacuum as configured by default).
 */
export async function measureListLatency(
  kind: "sqlite" | "postgres",
  identities: number,
  log: (line: string) => void,
): Promise<Measurement[]> {
  const server = await startTestServer(kind);
  try {
    const team = await seed(server, identities, log);
    const workloads = [
      ["first page, order_by=name", "order_by=name", 20],
      ["first page, created_at desc", "order_by=created_at%20desc", 20],
      [`skip=${identities / 2}`, `skip=${identities / 2}&order_by=name`, 50],
    ] as const;
    const out: Measurement[] = [];
    for (const [workload, query, target] of workloads) {
      const url = `${server.apiUrl}/iam/v2/identities?page_size=50&uidp.descendants_of=${team}&${query}`;
      const headers = { authorization: `Bearer ${server.org.token}` };
      const check = (await (await fetch(url, { headers })).json()) as {
        identities: unknown[];
        totalCount: string;
      };
      if (check.identities.length !== 50 || Number(check.totalCount) !== identities) {
        throw new Error(
          `unexpected answer for ${workload}: ${check.identities.length} rows, total ${check.totalCount}`,
        );
      }
      const times: number[] = [];
      for (let i = 0; i < requests; i++) {
        const start = performance.now();
        const res = await fetch(url, { headers });
        await res.arrayBuffer();
        times.push(performance.now() - start);
      }
      times.sort((a, b) => a - b);
      out.push({
        store: kind,
        workload,
        requests,
        p50: times[requests * 0.5],
        p99: times[requests * 0.99],
        target,
      });
    }
    return out;
  } finally {
    await server.close();
  }
}

/** Creates a subgroup and `count` identities in it through the REST API; returns its uid. */
async function seed(server: TestServer, count: number, log: (line: string) => void) {
  const headers = {
    authorization: `Bearer ${server.org.token}`,
    "content-type": "application/json",
  };
  const post = async (path: string, body: object) => {
    const res = await fetch(`${server.apiUrl}${path}`, {
      method: "POST",
      headers,
      body: JSON.stringify(body),
    });
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { uid: string };
  };
  const team = (await post(`/iam/v2/groups/${server.org.groupUid}`, { name: "team" })).uid;
  const started = performance.now();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      await post(`/iam/v2/identities/${team}`, { name: `identity-${(i * 7919) % count}` });
      if (i > 0 && i % 10_000 === 0) {
        const rate = i / ((performance.now() - started) / 1000);
        log(`  ${i}/${count} identities created (${rate.toFixed(0)}/s)`);
      }
    }
  };
  await Promise.all(Array.from({ length: seedConcurrency }, worker));
  return team;
}
