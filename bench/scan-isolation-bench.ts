import { type PressureReading, scanPressure } from "../test/support/scan-pressure.ts";
import { startServerProcess } from "../test/support/server-process.ts";

/** One measured number with its target. */
export interface ScanIsolationMeasurement {
  store: string;
  workload: string;
  value: string;
  target: string;
  met: boolean;
}

const MIB = 1024 * 1024;

/**
 * Issue 21.5: a server in a process of its own scans a layer with a 170,000-package dpkg
 * status, a 199,000-package SPDX referrer, and both at once, pushed over the registry API,
 * while another process GETs /healthz back to back. Targets: worst < 250 ms, p99 < 50 ms, the
 * server's RSS < 768 MiB, and back within 64 MiB of its start a minute after the last scan.
 */
export async function measureScanIsolation(
  kind: "sqlite" | "postgres",
  log: (line: string) => void,
): Promise<ScanIsolationMeasurement[]> {
  const s = await startServerProcess(kind);
  try {
    const baseline = s.rss();
    const p = scanPressure(s);
    const rows: ScanIsolationMeasurement[] = [];
    const add = (r: PressureReading) => {
      rows.push({
        store: kind,
        workload: `${r.workload}: /healthz`,
        value: `worst ${r.worstMs.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(1)} ms (${r.requests} GETs)`,
        target: "worst < 250 ms, p99 < 50 ms",
        met: r.worstMs < 250 && r.p99Ms < 50,
      });
      rows.push({
        store: kind,
        workload: `${r.workload}: server RSS`,
        value: `peak ${(r.peakRss / MIB).toFixed(0)} MiB (${(baseline / MIB).toFixed(0)} at start)`,
        target: "< 768 MiB",
        met: r.peakRss < 768 * MIB,
      });
    };
    log(`scan isolation on ${kind}: a 170,000-package dpkg layer…`);
    add(await p.dpkgLayer("bench"));
    log(`scan isolation on ${kind}: a 199,000-package SPDX referrer…`);
    add(await p.spdxReferrer("bench"));
    log(`scan isolation on ${kind}: both at once…`);
    add(await p.both("bench"));
    const start = performance.now();
    const rss = await p.rssFallsUnder(baseline + 64 * MIB, 60_000);
    const seconds = (performance.now() - start) / 1000;
    rows.push({
      store: kind,
      workload: "server RSS after the scans",
      value: `${(rss / MIB).toFixed(0)} MiB after ${seconds.toFixed(0)} s`,
      target: "within 64 MiB of the start in 60 s",
      met: rss < baseline + 64 * MIB,
    });
    return rows;
  } finally {
    await s.close();
  }
}
