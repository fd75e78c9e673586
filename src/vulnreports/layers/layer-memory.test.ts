import assert from "node:assert/strict";
import { test } from "node:test";
import { layersOf, streamedFillerLayer } from "../../../test/support/tar-layers.ts";
import { scanLayers } from "./layer-walker.ts";

const MIB = 1024 * 1024;

test("a ~200 MiB gzip layer streams through with RSS growth under 200 MB", async () => {
  // 190 one-MiB filler files, one 20 MiB wanted file (over the cap, so skipped unread) and
  // one small wanted file: the scanner must drain the rest as it passes.
  const big = streamedFillerLayer(190, MIB, [
    { name: "var/lib/dpkg/status", content: Buffer.alloc(20 * MIB, 0x41) },
    { name: "lib/apk/db/installed", content: "P:musl\nV:1\n" },
  ]);
  const wanted = (path: string) => path === "var/lib/dpkg/status" || path.startsWith("lib/apk/");
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 20);
  try {
    const scan = await scanLayers(layersOf(big), wanted);
    const after = process.memoryUsage().rss;
    peak = Math.max(peak, after);
    assert.deepEqual([...scan.files.keys()], ["lib/apk/db/installed"]);
    assert.deepEqual(
      scan.skipped.map((s) => s.path),
      ["var/lib/dpkg/status"],
    );
    assert.deepEqual(scan.errors, []);
    assert.ok(after - before < 200 * 1000 * 1000, `RSS grew ${(after - before) / MIB} MiB`);
    assert.ok(peak - before < 200 * 1000 * 1000, `RSS peaked ${(peak - before) / MIB} MiB up`);
  } finally {
    clearInterval(sampler);
  }
});
