import { measureListLatency } from "./list-latency.ts";

/** `npm run bench`: prints every measurement and whether it meets its target. */
const rows = [];
for (const kind of ["sqlite", "postgres"] as const) {
  process.stderr.write(`list latency on ${kind}: seeding 100,000 identities…\n`);
  rows.push(...(await measureListLatency(kind)));
}
const format = (ms: number) => `${ms.toFixed(2)} ms`;
console.log("store     workload                   requests  p50        p99        target (p99)");
for (const r of rows) {
  const verdict = r.p99 < r.target ? "ok" : "MISSED";
  console.log(
    `${r.store.padEnd(9)} ${r.workload.padEnd(26)} ${String(r.requests).padEnd(9)} ${format(r.p50).padEnd(10)} ${format(r.p99).padEnd(10)} < ${r.target} ms ${verdict}`,
  );
}
