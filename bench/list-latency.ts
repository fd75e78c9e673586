import { performance } from "node:perf_hooks";
import { sql } from "kysely";
import { identityExtras } from "../src/store/metadata/index.ts";
import { newChildUid } from "../src/uidp/index.ts";
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

const identities = 100_000;
const requests = 1_000;

/**
 * List latency over REST for a page of 50 with totalCount from 100,000 identities in one
 * organisation (issue: "Platform core", item 12).
 */
export async function measureListLatency(kind: "sqlite" | "postgres"): Promise<Measurement[]> {
  const server = await startTestServer(kind);
  try {
    await seed(server);
    const workloads = [
      ["order_by=name", "order_by=name", 20],
      ["order_by=created_at desc", "order_by=created_at%20desc", 20],
      ["skip=50000", "skip=50000&order_by=name", 50],
    ] as const;
    const out: Measurement[] = [];
    for (const [workload, query, target] of workloads) {
      const url = `${server.apiUrl}/iam/v2/identities?page_size=50&uidp.descendants_of=${server.org.groupUid}&${query}`;
      const headers = { authorization: `Bearer ${server.org.token}` };
      const check = (await (await fetch(url, { headers })).json()) as {
        identities: unknown[];
        totalCount: string;
      };
      if (check.identities.length !== 50 || Number(check.totalCount) < identities) {
        throw new Error(
          `unexpected answer for ${workload}: ${check.identities.length} rows, total ${check.totalCount}`,
        );
      }
      for (let i = 0; i < 50; i++) await (await fetch(url, { headers })).arrayBuffer();
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

async function seed(server: TestServer): Promise<void> {
  const { db } = server.lading.store;
  const org = server.org.groupUid;
  const base = Date.parse("2026-01-01T00:00:00.000Z");
  for (let i = 0; i < identities; i += 1000) {
    const rows = Array.from({ length: 1000 }, (_, j) => {
      const time = new Date(base + (i + j) * 1000).toISOString();
      return {
        uid: newChildUid(org),
        parent_uid: org,
        name: `identity-${((i + j) * 7919) % identities}`,
        description: "",
        issuer: "",
        subject: "",
        ...identityExtras,
        last_seen_time: null,
        create_time: time,
        update_time: time,
      };
    });
    await db.insertInto("identities").values(rows).execute();
  }
  // The steady state autovacuum reaches on PostgreSQL (visibility map set, statistics fresh).
  await sql`${sql.raw(server.lading.store.dialect === "postgres" ? "VACUUM ANALYZE" : "ANALYZE")}`.execute(
    db,
  );
}
