import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  DPKG_PACKAGES,
  type PressureReading,
  SPDX_PACKAGES,
  scanPressure,
} from "../support/scan-pressure.ts";
import { type ServerProcess, startServerProcess } from "../support/server-process.ts";

const MIB = 1024 * 1024;
/**
 * Loose bounds for a loaded CI machine; the targets (`npm run bench -- scans`) are 250 ms worst,
 * 50 ms p99 and 768 MiB. Before scans left the event loop a 170k-package layer stalled
 * /healthz for 4.7 to 13 s, and the server's RSS grew by 460 MiB and stayed.
 */
const WORST_MS = 2000;
const P99_MS = 250;
const MAX_RSS = 900 * MIB;
/**
 * Both inputs at once, after the two scans before them in the same process. Measured at
 * 915–1036 MiB before the scan thread's young generation was capped and the generated SPDX
 * streamed; after, 600–650 MiB on a fresh server and up to 919 MiB inside the full suite
 * (other test files running beside it). 1 GiB stays under what the old code reached.
 */
const MAX_RSS_BOTH = 1024 * MIB;
/** RSS back within this much of where it started, within a minute of the last scan. */
const RETURNED = 200 * MIB;

// Issue 21.5: a scan of a huge package list runs off the thread that answers requests, and the
// memory it takes is given back. The server runs in a process of its own (a real server on
// port 0, pushed to over the registry API), so that building and pushing the inputs here never
// counts as its work.
for (const store of ["sqlite", "postgres"] as const) {
  describe(`scans do not freeze the server [${store}]`, () => {
    let s: ServerProcess;
    let baseline = 0;
    before(async () => {
      s = await startServerProcess(store);
      baseline = s.rss();
    });
    after(() => s?.close());

    const assertResponsive = (r: PressureReading, maxRss = MAX_RSS) => {
      const line = `${r.workload}: worst ${r.worstMs.toFixed(0)} ms, p99 ${r.p99Ms.toFixed(0)} ms over ${r.requests} requests; server RSS peak ${(r.peakRss / MIB).toFixed(0)} MiB (${(baseline / MIB).toFixed(0)} MiB at start)`;
      assert.ok(r.requests > 20, line);
      assert.ok(r.worstMs < WORST_MS, line);
      assert.ok(r.p99Ms < P99_MS, line);
      assert.ok(r.peakRss < maxRss, line);
    };

    it("a layer holding a 170,000-package dpkg status is scanned while /healthz answers", async () => {
      const p = scanPressure(s);
      const r = await p.dpkgLayer("alone");
      assertResponsive(r);
      assert.deepEqual(await p.scanOf(r.name, r.digest), {
        state: "done",
        reason: "",
        packages: DPKG_PACKAGES,
      });
    });

    it("a 199,000-package SPDX referrer is read while /healthz answers", async () => {
      const p = scanPressure(s);
      const r = await p.spdxReferrer("alone");
      assertResponsive(r);
      assert.deepEqual(await p.scanOf(r.name, r.digest), {
        state: "done",
        reason: "",
        packages: SPDX_PACKAGES,
      });
    });

    it("both at once, then the memory is given back", async () => {
      const p = scanPressure(s);
      const r = await p.both("x");
      assertResponsive(r, MAX_RSS_BOTH);
      assert.equal((await p.scanOf(r.dpkg.name, r.dpkg.digest)).packages, DPKG_PACKAGES);
      assert.equal((await p.scanOf(r.spdx.name, r.spdx.digest)).packages, SPDX_PACKAGES);
      const rss = await p.rssFallsUnder(baseline + RETURNED, 60_000);
      assert.ok(
        rss < baseline + RETURNED,
        `RSS ${(rss / MIB).toFixed(0)} MiB a minute after the scans, ${(baseline / MIB).toFixed(0)} MiB at start`,
      );
    });
  });
}
