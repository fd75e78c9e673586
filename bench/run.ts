import { measureAdvisories } from "./advisory-bench.ts";
import { measureEvents } from "./events-bench.ts";
import { measureListLatency } from "./list-latency.ts";
import { measureRegistry } from "./registry-bench.ts";

/**
 * `npm run bench`: list latency (Platform core) and registry throughput (Registry), printing
 * every number, the ratio to Distribution where it is installed, and whether each target is met.
 * `npm run bench -- lists`, `-- registry`, `-- advisories` or `-- events` runs one part.
 */
const only = process.argv[2];
const log = (line: string) => process.stderr.write(`${line}\n`);

if (!only || only === "lists") {
  const rows = [];
  const identities = Number(process.env.LADING_BENCH_IDENTITIES ?? 100_000);
  const stores = (process.env.LADING_BENCH_STORES ?? "sqlite,postgres").split(",");
  for (const kind of ["sqlite", "postgres"] as const) {
    if (!stores.includes(kind)) continue;
    log(`list latency on ${kind}: creating ${identities} identities through the REST API…`);
    rows.push(...(await measureListLatency(kind, identities, log)));
  }
  const ms = (n: number) => `${n.toFixed(2)} ms`;
  console.log(
    "store     workload                     requests  p50        p99        target (p99)",
  );
  for (const r of rows) {
    const verdict = r.p99 < r.target ? "ok" : "MISSED";
    console.log(
      `${r.store.padEnd(9)} ${r.workload.padEnd(28)} ${String(r.requests).padEnd(9)} ${ms(r.p50).padEnd(10)} ${ms(r.p99).padEnd(10)} < ${r.target} ms ${verdict}`,
    );
  }
}

if (!only || only === "registry") {
  const rows = await measureRegistry(log);
  console.log(
    "\nworkload                                lading        distribution  ratio   target",
  );
  for (const r of rows) {
    const value = (n: number | undefined) =>
      n === undefined ? "-" : `${n.toFixed(n < 100 ? 2 : 0)} ${r.unit}`;
    const ratio = r.distribution ? `${(r.lading / r.distribution).toFixed(2)}x` : "-";
    console.log(
      `${r.workload.padEnd(39)} ${value(r.lading).padEnd(13)} ${value(r.distribution).padEnd(13)} ${ratio.padEnd(7)} ${r.target} ${r.met ? "ok" : "MISSED"}`,
    );
  }
}

if (!only || only === "advisories") {
  const count = Number(process.env.LADING_BENCH_ADVISORIES ?? 100_000);
  const stores = (process.env.LADING_BENCH_STORES ?? "sqlite,postgres").split(",");
  const rows = [];
  for (const kind of ["sqlite", "postgres"] as const) {
    if (!stores.includes(kind)) continue;
    log(`advisories on ${kind}: importing ${count} generated advisories…`);
    rows.push(...(await measureAdvisories(kind, count, log)));
  }
  console.log(
    "\nstore     workload                                          value                                  target",
  );
  for (const r of rows) {
    console.log(
      `${r.store.padEnd(9)} ${r.workload.padEnd(49)} ${r.value.padEnd(38)} ${r.target} ${r.met ? "ok" : "MISSED"}`,
    );
  }
}

if (!only || only === "events") {
  const count = Number(process.env.LADING_BENCH_EVENTS ?? 1000);
  const stores = (process.env.LADING_BENCH_STORES ?? "sqlite,postgres").split(",");
  const rows = [];
  for (const kind of ["sqlite", "postgres"] as const) {
    if (stores.includes(kind)) rows.push(...(await measureEvents(kind, count, log)));
  }
  console.log(
    "\nstore     workload                            events  deliveries  events/s  deliveries/s",
  );
  for (const r of rows) {
    console.log(
      `${r.store.padEnd(9)} ${r.workload.padEnd(35)} ${String(r.events).padEnd(7)} ${String(r.deliveries).padEnd(11)} ${(r.events / r.seconds).toFixed(0).padEnd(9)} ${(r.deliveries / r.seconds).toFixed(0)}`,
    );
  }
}
