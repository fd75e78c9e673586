import { spawn } from "node:child_process";
import type { AdvisoryMeasurement } from "./advisory-bench.ts";
import { measureEvents } from "./events-bench.ts";
import { measureGc } from "./gc-bench.ts";
import { measureNpmPackuments } from "./library-npm-bench.ts";
import { measurePythonRepository } from "./library-python-bench.ts";
import { measureListLatency } from "./list-latency.ts";
import { measurePullEvents } from "./pull-events-bench.ts";
import { measureRegistry } from "./registry-bench.ts";
import { measureRegistryRounds } from "./registry-rounds.ts";
import { measureReplicas } from "./replicas-bench.ts";
import { measureSbomGeneration } from "./sbom-generation-bench.ts";
import { measureScanIsolation } from "./scan-isolation-bench.ts";
import { measureStoreRatio } from "./store-ratio-bench.ts";
import { measureUploadMemory, targetAddedMiB } from "./upload-memory-bench.ts";
import { measureVulnReports } from "./vuln-report-bench.ts";

/**
 * `npm run bench`: list latency (Platform core) and registry throughput (Registry), printing
 * every number, the ratio to Distribution where it is installed, and whether each target is met.
 * `npm run bench -- lists`, `-- registry`, `-- pull-events`, `-- advisories`, `-- sbom`,
 * `-- reports`, `-- scans`, `-- events`, `-- libraries`, `-- replicas`, `-- store-ratio`, `-- gc` or
 * `-- upload-memory`
 * runs one part.
 */
const only = process.argv[2];
const log = (line: string) => process.stderr.write(`${line}\n`);

/** measureAdvisories for one store in a process of its own (advisory-child.ts). */
function measureAdvisoriesApart(
  kind: "sqlite" | "postgres",
  count: number,
): Promise<AdvisoryMeasurement[]> {
  const child = spawn(
    process.execPath,
    [new URL("./advisory-child.ts", import.meta.url).pathname, kind, String(count)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0
        ? resolve(JSON.parse(stdout) as AdvisoryMeasurement[])
        : reject(new Error(`the ${kind} advisory bench exited with ${code}`)),
    );
  });
}

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

if (!only || only === "registry-rounds") {
  const rows = await measureRegistryRounds(log, {
    rounds: Number(process.env.LADING_BENCH_ROUNDS ?? 3),
    sizeMiB: Number(process.env.LADING_BENCH_BLOB_MIB ?? 256),
    seconds: Number(process.env.LADING_BENCH_SECONDS ?? 5),
  });
  console.log(
    "\ncondition  workload                            lading          versus            median  rounds                target",
  );
  for (const r of rows) {
    const value = `${r.lading.toFixed(0)} ${r.unit}`;
    const rounds = r.rounds.map((x) => x.toFixed(2)).join(", ");
    console.log(
      `${r.condition.padEnd(10)} ${r.workload.padEnd(35)} ${value.padEnd(15)} ${r.versus.padEnd(17)} ${`${r.ratio.toFixed(2)}x`.padEnd(7)} ${rounds.padEnd(21)} ${r.target} ${r.met ? "ok" : "MISSED"}`,
    );
  }
}

if (!only || only === "pull-events") {
  const stores = (process.env.LADING_BENCH_STORES ?? "sqlite,postgres").split(",");
  for (const kind of ["sqlite", "postgres"] as const) {
    if (!stores.includes(kind)) continue;
    log(`manifest GET with pull events on and off (${kind})…`);
    const m = await measurePullEvents(kind, log);
    const verdict = m.ratio >= 0.9 && m.written === m.answered ? "ok" : "MISSED";
    console.log(
      `\n${`manifest GET, ${kind}, 16 conn.`.padEnd(30)} events on     events off    ratio   target`,
    );
    console.log(
      `${"".padEnd(30)} ${`${m.on.toFixed(0)} req/s`.padEnd(13)} ${`${m.off.toFixed(0)} req/s`.padEnd(13)} ${m.ratio.toFixed(2).padEnd(7)} >= 0.90, one event per GET (${m.written}/${m.answered}) ${verdict}`,
    );
    console.log(
      `server CPU per GET             ${`${m.cpuOn.toFixed(0)} µs`.padEnd(13)} ${`${m.cpuOff.toFixed(0)} µs`.padEnd(13)} ${m.cpuRatio.toFixed(2).padEnd(7)} (off / on; all threads)`,
    );
    console.log(
      `  main thread                  ${`${m.mainOn.toFixed(0)} µs`.padEnd(13)} ${`${m.mainOff.toFixed(0)} µs`.padEnd(13)} ${(m.mainOff / m.mainOn).toFixed(2).padEnd(7)} (the thread that answers GETs; SQLite writes pull events on another)`,
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
    rows.push(...(await measureAdvisoriesApart(kind, count)));
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

if (!only || only === "sbom") {
  const mib = Number(process.env.LADING_BENCH_SBOM_MIB ?? 500);
  const rows = await measureSbomGeneration(mib, log);
  console.log("\nworkload                              value                     target");
  for (const r of rows) {
    console.log(
      `${r.workload.padEnd(37)} ${r.value.padEnd(25)} ${r.target} ${r.met ? "ok" : "MISSED"}`,
    );
  }
}

if (!only || only === "scans") {
  const stores = (process.env.LADING_BENCH_STORES ?? "sqlite,postgres").split(",");
  const rows = [];
  for (const kind of ["sqlite", "postgres"] as const) {
    if (stores.includes(kind)) rows.push(...(await measureScanIsolation(kind, log)));
  }
  console.log(
    "\nstore     workload                                        value                                      target",
  );
  for (const r of rows) {
    console.log(
      `${r.store.padEnd(9)} ${r.workload.padEnd(47)} ${r.value.padEnd(42)} ${r.target} ${r.met ? "ok" : "MISSED"}`,
    );
  }
}

if (!only || only === "reports") {
  const count = Number(process.env.LADING_BENCH_ADVISORIES ?? 100_000);
  const stores = (process.env.LADING_BENCH_STORES ?? "sqlite,postgres").split(",");
  const rows = [];
  for (const kind of ["sqlite", "postgres"] as const) {
    if (!stores.includes(kind)) continue;
    log(`vulnerability reports on ${kind}: importing ${count} generated advisories…`);
    rows.push(...(await measureVulnReports(kind, count, log)));
  }
  console.log(
    "\nstore     workload                                          value                                            target",
  );
  for (const r of rows) {
    console.log(
      `${r.store.padEnd(9)} ${r.workload.padEnd(49)} ${r.value.padEnd(48)} ${r.target} ${r.met ? "ok" : "MISSED"}`,
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

if (!only || only === "libraries") {
  const rows = [...(await measurePythonRepository(log))];
  console.log(
    "\nlibraries workload                          value                                   target",
  );
  for (const r of rows) {
    console.log(
      `${r.workload.padEnd(43)} ${r.value.padEnd(39)} ${r.target} ${r.met ? "ok" : "MISSED"}`,
    );
  }
  const npmRows = await measureNpmPackuments(log);
  console.log(
    "\nnpm workload                                          rate          bytes   target",
  );
  for (const r of npmRows) {
    console.log(
      `${r.workload.padEnd(53)} ${`${r.rate.toFixed(0)} req/s`.padEnd(13)} ${String(r.bytes).padEnd(7)} ${r.target} ${r.met ? "ok" : "MISSED"}`,
    );
  }
}

if (!only || only === "replicas") {
  const rows = await measureReplicas(log);
  console.log(
    "\nreplicas behind nginx (wrk -c16)  replicas  req/s     MiB/s     errors  scaling vs 1",
  );
  for (const r of rows) {
    const one = rows.find((o) => o.workload === r.workload && o.replicas === 1);
    const scaling = one ? r.requestsPerSecond / one.requestsPerSecond : 1;
    console.log(
      `${r.workload.padEnd(33)} ${String(r.replicas).padEnd(9)} ${r.requestsPerSecond.toFixed(0).padEnd(9)} ${r.mibPerSecond.toFixed(1).padEnd(9)} ${String(r.errors).padEnd(7)} ${scaling.toFixed(2)}x ${r.errors === 0 ? "ok" : "ERRORS"}`,
    );
  }
}

if (!only || only === "store-ratio") {
  const m = await measureStoreRatio(log);
  const rates = (xs: number[]) => xs.map((x) => x.toFixed(0)).join(", ");
  const ok = m.ratio >= 0.8 && m.errors === 0;
  console.log("\nmanifest GET by tag (wrk -c16)   req/s per round");
  console.log(`SQLite                           ${rates(m.sqlite)}`);
  console.log(`PostgreSQL                       ${rates(m.postgres)}`);
  console.log(
    `PostgreSQL / SQLite (median)     ${m.ratio.toFixed(2)}  errors ${m.errors}  target >= 0.80, 0 errors ${ok ? "ok" : "MISSED"}`,
  );
}

if (!only || only === "gc") {
  const rows = await measureGc(log);
  console.log(
    "\ngarbage collection          manifests blobs   deleted (m/b)  seconds  GET idle  GET during  usage p50/p99      targets",
  );
  for (const r of rows) {
    const fast = r.seconds < 60;
    const steady = r.duringRate >= r.idleRate * 0.8;
    const usage = r.usageP99 < 20;
    console.log(
      `${r.pair.padEnd(27)} ${String(r.manifests).padEnd(9)} ${String(r.blobs).padEnd(7)} ${`${r.deletedManifests}/${r.deletedBlobs}`.padEnd(14)} ${r.seconds.toFixed(1).padEnd(8)} ${r.idleRate.toFixed(0).padEnd(9)} ${r.duringRate.toFixed(0).padEnd(11)} ${`${r.usageP50.toFixed(1)}/${r.usageP99.toFixed(1)} ms`.padEnd(18)} <60s ${fast ? "ok" : "MISSED"}, GET ≥80% ${steady ? "ok" : "MISSED"}, usage p99 <20ms ${usage ? "ok" : "MISSED"}`,
    );
  }
}

if (!only || only === "upload-memory") {
  const rows = await measureUploadMemory(log);
  console.log(
    "\nupload memory                          baseline   peak       after      added      throughput   target (added)",
  );
  const mib = (n: number) => `${n.toFixed(0)} MiB`;
  for (const r of rows) {
    const workload = `${r.count} × ${r.sizeMiB} MiB ${r.mode}, ${r.store}`;
    console.log(
      `${workload.padEnd(38)} ${mib(r.baselineMiB).padEnd(10)} ${mib(r.peakMiB).padEnd(10)} ${mib(r.afterMiB).padEnd(10)} ${mib(r.addedMiB).padEnd(10)} ${`${r.throughput.toFixed(1)} MiB/s`.padEnd(12)} < ${targetAddedMiB} MiB ${r.addedMiB < targetAddedMiB ? "ok" : "MISSED"}`,
    );
  }
  console.log(`(after: RSS ${rows[0]?.settleSeconds ?? 20} s after the last upload was answered)`);
}
