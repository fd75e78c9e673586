import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { startS3rver } from "../test/support/s3rver.ts";
import { floodUploads, rssMiB, watchRss } from "../test/support/upload-flood.ts";
import { startLadingProcess } from "./registry.ts";

/** One run of concurrent uploads against a fresh `lading serve`. */
export interface UploadMemoryMeasurement {
  store: "filesystem" | "s3";
  mode: "monolithic" | "chunked";
  count: number;
  sizeMiB: number;
  baselineMiB: number;
  peakMiB: number;
  /** RSS `settleSeconds` after the last upload was answered. */
  afterMiB: number;
  settleSeconds: number;
  /** Bytes uploaded over the wall time of the whole flood, MiB/s. */
  throughput: number;
  /** Peak minus baseline, against {@link targetAddedMiB}. */
  addedMiB: number;
}

/** Issue 21: 200 concurrent 10 MiB uploads add less than this. */
export const targetAddedMiB = 500;

/**
 * `count` concurrent `sizeMiB` MiB uploads against a real `lading serve` on each blob store
 * (S3 through an s3rver in this process) and each upload mode, with the server's RSS before,
 * at its peak and `settleSeconds` after.
 */
export async function measureUploadMemory(
  log: (line: string) => void,
  count = Number(process.env.LADING_BENCH_UPLOADS ?? 200),
  sizeMiB = 10,
  settleSeconds = 20,
  stores: readonly string[] = ["filesystem", "s3"],
): Promise<UploadMemoryMeasurement[]> {
  const rows: UploadMemoryMeasurement[] = [];
  for (const store of ["filesystem", "s3"] as const) {
    if (!stores.includes(store)) continue;
    for (const mode of ["monolithic", "chunked"] as const) {
      log(`upload memory: ${count} × ${sizeMiB} MiB ${mode} uploads on ${store}…`);
      const s3Dir = store === "s3" ? await mkdtemp(join(tmpdir(), "lading-bench-s3-")) : undefined;
      const s3 = s3Dir ? await startS3rver(s3Dir, "lading-bench") : undefined;
      if (s3) {
        process.env.AWS_ACCESS_KEY_ID = "S3RVER";
        process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
      }
      const flags = s3
        ? ["--blob-store", `s3://lading-bench/blobs?endpoint=${s3.endpoint}&forcePathStyle=true`]
        : [];
      const lading = await startLadingProcess("acme/flood", flags);
      try {
        const target = { ...lading.target, token: lading.target.token ?? "" };
        await floodUploads(target, { count: 2, sizeMiB, mode });
        await sleep(2000);
        const baselineMiB = rssMiB(lading.pid);
        const watch = watchRss(lading.pid);
        const start = performance.now();
        await floodUploads(target, { count, sizeMiB, mode });
        const seconds = (performance.now() - start) / 1000;
        const peakMiB = watch.stop();
        await sleep(settleSeconds * 1000);
        const afterMiB = rssMiB(lading.pid);
        rows.push({
          store,
          mode,
          count,
          sizeMiB,
          baselineMiB,
          peakMiB,
          afterMiB,
          settleSeconds,
          throughput: (count * sizeMiB) / seconds,
          addedMiB: peakMiB - baselineMiB,
        });
        log(`  ${JSON.stringify(rows.at(-1))}`);
      } finally {
        await lading.stop();
        await s3?.close();
        if (s3Dir) await rm(s3Dir, { recursive: true, force: true });
      }
    }
  }
  return rows;
}
