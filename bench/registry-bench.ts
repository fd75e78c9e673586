import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { promisify } from "node:util";
import { hasDistribution, startDistribution } from "./distribution.ts";
import {
  download,
  makeBlob,
  manifestRate,
  pushSmallImage,
  type RegistryTarget,
  uploadChunked,
  uploadMonolithic,
} from "./oci-workloads.ts";
import { historyLatency, peakRssMiB, startLadingProcess } from "./registry.ts";

const run = promisify(execFile);

/** One line of the registry benchmark. */
export interface RegistryMeasurement {
  workload: string;
  unit: string;
  lading: number;
  distribution?: number;
  /** What the issue asks for, as text. */
  target: string;
  met: boolean;
}

interface Throughput {
  upload: number;
  chunked: number;
  /** The first pull of a blob right after its push: what the upload left in the page cache. */
  fresh: number;
  /** The second pull of the same blob. */
  download: number;
  get: number;
  head: number;
}

async function throughput(target: RegistryTarget, sizeMiB: number): Promise<Throughput> {
  await uploadMonolithic(target, await makeBlob(sizeMiB));
  const mono = await makeBlob(sizeMiB);
  const upload = sizeMiB / (await uploadMonolithic(target, mono));
  // Pulled at once, as a CI job pulls what the previous job pushed: no cache is dropped, so
  // this measures what each registry's upload path leaves in the page cache.
  const fresh = sizeMiB / (await download(target, mono.digest, mono.size));
  const down = sizeMiB / (await download(target, mono.digest, mono.size));
  const chunked = sizeMiB / (await uploadChunked(target, await makeBlob(sizeMiB)));
  const digest = await pushSmallImage(target, "latest");
  await manifestRate(target, "GET", digest, 2000);
  const get = await manifestRate(target, "GET", digest);
  const head = await manifestRate(target, "HEAD", digest);
  return { upload, chunked, fresh, download: down, get, head };
}

/** MiB/s of `openssl dgst -sha256` over a file of `sizeMiB` MiB. */
async function opensslSpeed(sizeMiB: number): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "lading-bench-openssl-"));
  const file = join(dir, "blob");
  const blob = await makeBlob(sizeMiB);
  const chunks: Buffer[] = [];
  for await (const c of blob.stream()) chunks.push(c as Buffer);
  writeFileSync(file, Buffer.concat(chunks));
  await run("openssl", ["dgst", "-sha256", file]);
  const start = performance.now();
  await run("openssl", ["dgst", "-sha256", file]);
  const seconds = (performance.now() - start) / 1000;
  rmSync(dir, { recursive: true, force: true });
  return sizeMiB / seconds;
}

/**
 * Peak RSS (VmHWM, start-up included) of a fresh Lading process while one blob of `sizeMiB`
 * is pushed and pulled, so the earlier workloads' memory does not count.
 */
async function peakRssWithBigBlob(sizeMiB: number): Promise<number> {
  const lading = await startLadingProcess("acme/big");
  try {
    const big = await makeBlob(sizeMiB);
    await uploadMonolithic(lading.target, big);
    await download(lading.target, big.digest, big.size);
    return peakRssMiB(lading.pid);
  } finally {
    await lading.stop();
  }
}

/**
 * The registry workloads of the Registry issue: blob upload and download of a 512 MiB blob
 * (monolithic and chunked), manifest GET and HEAD with 16 connections, RSS while a 2 GiB blob
 * streams through, and tag-history p99 — against Lading and, when installed, Distribution.
 */
export async function measureRegistry(log: (line: string) => void): Promise<RegistryMeasurement[]> {
  const size = 512;
  log("registry: starting Lading (filesystem + SQLite)…");
  const lading = await startLadingProcess("acme/bench");
  try {
    const ours = await throughput(lading.target, size);
    let theirs: Throughput | undefined;
    if (hasDistribution()) {
      log("registry: the same workloads on Distribution…");
      const distribution = await startDistribution();
      try {
        theirs = await throughput(
          { name: "distribution", url: distribution.url, repo: "acme/bench" },
          size,
        );
      } finally {
        await distribution.stop();
      }
    }
    log("registry: openssl dgst -sha256 on the same size…");
    const openssl = await opensslSpeed(size);
    log("registry: a 2 GiB blob up and down through a fresh Lading process…");
    const rss = await peakRssWithBigBlob(2048);
    log("registry: tag history with 100,000 records…");
    const history = await historyLatency(lading);
    const ratio = (a: number, b?: number) => (b ? a / b : Number.NaN);
    const rows: RegistryMeasurement[] = [
      {
        workload: "blob download 512 MiB, fresh",
        unit: "MiB/s",
        lading: ours.fresh,
        distribution: theirs?.fresh,
        target: ">= 1.0x Distribution",
        met: !theirs || ratio(ours.fresh, theirs.fresh) >= 1,
      },
      {
        workload: "blob download 512 MiB, warm",
        unit: "MiB/s",
        lading: ours.download,
        distribution: theirs?.download,
        target: ">= 1.0x Distribution",
        met: !theirs || ratio(ours.download, theirs.download) >= 1,
      },
      {
        workload: "blob upload 512 MiB (monolithic)",
        unit: "MiB/s",
        lading: ours.upload,
        distribution: theirs?.upload,
        target: `>= 1.5x Distribution and >= 50% of openssl (${openssl.toFixed(0)} MiB/s)`,
        met: (!theirs || ratio(ours.upload, theirs.upload) >= 1.5) && ours.upload >= openssl / 2,
      },
      {
        workload: "blob upload 512 MiB (chunked)",
        unit: "MiB/s",
        lading: ours.chunked,
        distribution: theirs?.chunked,
        target: `>= 1.5x Distribution and >= 50% of openssl (${openssl.toFixed(0)} MiB/s)`,
        met: (!theirs || ratio(ours.chunked, theirs.chunked) >= 1.5) && ours.chunked >= openssl / 2,
      },
      {
        workload: "manifest GET, 16 connections",
        unit: "req/s",
        lading: ours.get,
        distribution: theirs?.get,
        target: ">= 3x Distribution",
        met: !theirs || ratio(ours.get, theirs.get) >= 3,
      },
      {
        workload: "manifest HEAD, 16 connections",
        unit: "req/s",
        lading: ours.head,
        distribution: theirs?.head,
        target: "(reported)",
        met: true,
      },
      {
        workload: "peak RSS with a 2 GiB blob",
        unit: "MiB",
        lading: rss,
        target: "< 200 MiB",
        met: rss < 200,
      },
      {
        workload: "tag history p50 (1000-record window)",
        unit: "ms",
        lading: history.p50,
        target: "(reported)",
        met: true,
      },
      {
        workload: "tag history p99 (1000-record window)",
        unit: "ms",
        lading: history.p99,
        target: "(reported)",
        met: true,
      },
    ];
    return rows;
  } finally {
    await lading.stop();
  }
}
