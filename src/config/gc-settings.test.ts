import assert from "node:assert/strict";
import { test } from "node:test";
import { resolveConfig } from "./config.ts";

test("garbage collection settings: defaults, off, a zero grace, and refusals naming the flag", () => {
  assert.deepEqual(resolveConfig({}, {}).gc, {
    intervalMs: 3_600_000,
    graceMs: 7_200_000,
    historyRetentionMs: 30 * 86_400_000,
  });
  const set = resolveConfig({ gcInterval: "off", gcGrace: "0s", gcHistoryRetention: "7d" }, {});
  assert.deepEqual(set.gc, { intervalMs: 0, graceMs: 0, historyRetentionMs: 7 * 86_400_000 });
  assert.equal(resolveConfig({}, { LADING_GC_GRACE: "30m" }).gc.graceMs, 1_800_000);
  assert.throws(() => resolveConfig({ gcGrace: "2" }, {}), /--gc-grace/);
  assert.throws(() => resolveConfig({}, { LADING_GC_INTERVAL: "hourly" }), /LADING_GC_INTERVAL/);
});
