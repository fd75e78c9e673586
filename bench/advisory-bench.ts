import { performance } from "node:perf_hooks";
import {
  ensurePublicAdvisoriesGroup,
  importFeed,
  importFormats,
} from "../src/vulnerabilities/index.ts";
import { generateAdvisoryDocuments } from "../test/support/advisory-documents.ts";
import { startTestServer } from "../test/support/server.ts";
import { measureLatency } from "./measure-latency.ts";

/** One measured number with its target. */
export interface AdvisoryMeasurement {
  store: string;
  workload: string;
  /** "records/s" or a p50/p99 pair in ms. */
  value: string;
  target: string;
  met: boolean;
}

const requests = 1_000;

/**
 * Security data at scale: `count` generated advisories imported through the same path as
 * `lading admin import advisories` (parse and write), then advisory list latency through
 * `fetch` (from a client process of its own) with the artifactNames and query filters, on the
 * first page and at skip 50,000.
 */
export async function measureAdvisories(
  kind: "sqlite" | "postgres",
  count: number,
  log: (line: string) => void,
): Promise<AdvisoryMeasurement[]> {
  const server = await startTestServer(kind);
  try {
    // The generated documents (~70 MB) are dropped before lists are measured, so their
    // garbage collection does not land in the latencies.
    const { out, artifact } = await importGenerated(server, kind, count, log);
    const workloads = [
      ["first page, artifactNames", `artifact_names=${artifact}`, 20, 10],
      ["first page, artifactNames + query", `artifact_names=${artifact}&query=cve-`, 20, 1],
      ["first page, no filter", "", 20, 50],
      ["first page, query alone (1 in 10)", "query=cve-2021", 20, 50],
      // A new query on every request: what the remembered counts cannot answer.
      ["first page, query alone, each new", "query=-{n}", 20, 0],
      ["skip=50000, no filter", "skip=50000", 50, 50],
      ["skip=50000, query (85% match)", "query=cve-&skip=50000", 50, 50],
    ] as const;
    const headers = { authorization: `Bearer ${server.org.token}` };
    for (const [workload, query, target, least] of workloads) {
      const url = `${server.apiUrl}/vulnerabilities/v2/advisories?page_size=50&${query}`;
      const check = (await (await fetch(url.replace("{n}", "1000"), { headers })).json()) as {
        advisories?: unknown[];
        totalCount: string;
      };
      if ((check.advisories?.length ?? 0) < least) {
        throw new Error(
          `${workload}: ${check.advisories?.length ?? 0} rows of ${check.totalCount}`,
        );
      }
      const { p50, p99 } = await measureLatency(url, headers.authorization, requests);
      out.push({
        store: kind,
        workload: `${workload} (${check.totalCount} match)`,
        value: `p50 ${p50.toFixed(2)} ms, p99 ${p99.toFixed(2)} ms`,
        target: `p99 < ${target} ms`,
        met: p99 < target,
      });
    }
    return out;
  } finally {
    await server.close();
  }
}

/** Imports `count` generated advisories twice (the second run changes nothing), measured. */
async function importGenerated(
  server: Awaited<ReturnType<typeof startTestServer>>,
  kind: "sqlite" | "postgres",
  count: number,
  log: (line: string) => void,
): Promise<{ out: AdvisoryMeasurement[]; artifact: string | undefined }> {
  const documents = generateAdvisoryDocuments(count, 7);
  const db = server.lading.store.db;
  const parentUid = await ensurePublicAdvisoriesGroup(db);
  const started = performance.now();
  const { summary } = await importFeed(
    db,
    { parentUid, source: "bench", author: "bench" },
    importFormats.advisories.parser,
    documents.map((d) => ({ file: `${d.name}.advisories.yaml`, text: d.text })),
    { finish: true },
  );
  const seconds = (performance.now() - started) / 1000;
  if (summary.created !== count || summary.rejected !== 0) {
    throw new Error(`import made ${summary.created} advisories and ${summary.rejected} rejections`);
  }
  const rate = count / seconds;
  log(`  ${kind}: imported ${count} advisories in ${seconds.toFixed(1)} s`);
  const out: AdvisoryMeasurement[] = [
    {
      store: kind,
      workload: `import ${count} advisories`,
      value: `${rate.toFixed(0)} records/s`,
      target: kind === "sqlite" ? ">= 5000 records/s" : "-",
      met: kind !== "sqlite" || rate >= 5000,
    },
  ];
  const again = performance.now();
  const second = await importFeed(
    db,
    { parentUid, source: "bench", author: "bench" },
    importFormats.advisories.parser,
    documents.map((d) => ({ file: `${d.name}.advisories.yaml`, text: d.text })),
    { finish: true },
  );
  out.push({
    store: kind,
    workload: "re-import, nothing changed",
    value: `${(count / ((performance.now() - again) / 1000)).toFixed(0)} records/s (${second.summary.unchanged} unchanged)`,
    target: "-",
    met: second.summary.unchanged === count,
  });
  // A package with several advisories.
  const artifact = documents.find((d) => (d.text.match(/^ {2}- id: /gm) ?? []).length >= 10)?.name;
  return { out, artifact };
}
