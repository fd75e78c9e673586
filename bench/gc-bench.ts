import { execFile, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { storageUsage } from "../src/lifecycle/index.ts";
import { createBlobStore } from "../src/store/blobs/index.ts";
import { createMetadataStore } from "../src/store/metadata/index.ts";
import { startS3rver } from "../test/support/s3rver.ts";
import { createTestStore } from "../test/support/stores.ts";
import { freePort } from "./distribution.ts";
import { seedRegistry } from "./gc-seed.ts";
import { wrkManifestGets } from "./oci-workloads.ts";

const run = promisify(execFile);
const cli = new URL("../bin/lading.js", import.meta.url).pathname;

/** One store pair's collection. */
export interface GcMeasurement {
  pair: string;
  manifests: number;
  blobs: number;
  seconds: number;
  deletedManifests: number;
  deletedBlobs: number;
  idleRate: number;
  duringRate: number;
  usageP50: number;
  usageP99: number;
}

const pairs = [
  { kind: "sqlite", blobs: "filesystem" },
  { kind: "postgres", blobs: "s3" },
] as const;

/**
 * Seeds `manifests` manifests of 5 blobs each, 10 % garbage, through the store layer, times
 * organisation usage queries at that size, then starts `lading serve` and lets its scheduled
 * collection run while 16 connections GET a manifest: its duration, and the GET rate during
 * it against the rate before it.
 */
export async function measureGc(
  log: (line: string) => void,
  manifests = Number(process.env.LADING_BENCH_GC_MANIFESTS ?? 10_000),
): Promise<GcMeasurement[]> {
  const rows: GcMeasurement[] = [];
  const wanted = (process.env.LADING_BENCH_GC_PAIRS ?? "sqlite,postgres").split(",");
  for (const pair of pairs.filter((p) => wanted.includes(p.kind))) {
    const location = await createTestStore(pair.kind);
    const s3dir = mkdtempSync(join(tmpdir(), "lading-bench-s3-"));
    const s3 = pair.blobs === "s3" ? await startS3rver(s3dir, "lading-bench") : undefined;
    process.env.AWS_ACCESS_KEY_ID = "S3RVER";
    process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
    const blobStoreUrl = s3
      ? `s3://lading-bench/blobs?endpoint=${s3.endpoint}&region=us-east-1&forcePathStyle=true`
      : undefined;
    const [apiPort, registryPort] = [await freePort(), await freePort()];
    const flags = [
      "--data-dir",
      location.options.dataDir,
      ...(location.options.databaseUrl ? ["--database-url", location.options.databaseUrl] : []),
      ...(blobStoreUrl ? ["--blob-store", blobStoreUrl] : []),
      "--api-listen",
      `127.0.0.1:${apiPort}`,
      "--registry-listen",
      `127.0.0.1:${registryPort}`,
    ];
    const boot = JSON.parse(
      (await run(process.execPath, [cli, "admin", "bootstrap", "--org", "acme", ...flags])).stdout,
    );
    const token = (
      await run(process.execPath, [
        cli,
        "admin",
        "token",
        "--identity",
        boot.identityUid,
        "--audience",
        `127.0.0.1:${registryPort}`,
        "--ttl",
        "2h",
        ...flags,
      ])
    ).stdout.trim();
    const store = createMetadataStore(location.options);
    await store.migrate();
    const blobs = await createBlobStore({ dataDir: location.options.dataDir, blobStoreUrl });
    log(`gc ${pair.kind}+${pair.blobs}: seeding ${manifests} manifests, ${manifests * 5} blobs…`);
    const seeded = await seedRegistry(store.db, blobs, boot.groupUid, manifests, 5);
    const times: number[] = [];
    for (let i = 0; i < 200; i++) {
      const start = performance.now();
      await storageUsage(store.db, { orgUid: boot.groupUid });
      times.push(performance.now() - start);
    }
    times.sort((a, b) => a - b);
    const child = spawn(
      process.execPath,
      [cli, "serve", "--log-level", "warn", "--gc-interval", "15s", ...flags],
      { stdio: "ignore" },
    );
    const target = {
      name: "lading",
      url: `http://127.0.0.1:${registryPort}`,
      repo: `acme/${seeded.probe.repo}`,
      token,
    };
    try {
      for (let i = 0; i < 200; i++) {
        const up = await fetch(`${target.url}/v2/`, {
          headers: { authorization: `Bearer ${token}` },
        }).then(
          (r) => r.ok,
          () => false,
        );
        if (up) break;
        await sleep(100);
      }
      // Samples of one second of GETs over 16 connections, by wrk in a process of its own: the
      // s3rver this process hosts blocks its event loop while it deletes (it lists the key
      // folder after each key), which would stall a client here and not the server.
      const samples: { start: number; end: number; n: number }[] = [];
      const path = `/v2/${target.repo}/manifests/${seeded.probe.tag}`;
      let finished: { start: number; end: number; row: Record<string, unknown> } | undefined;
      const deadline = Date.now() + 600_000;
      while (!finished && Date.now() < deadline) {
        const start = Date.now();
        const { rate: perSecond, errors } = await wrkManifestGets(target, path, 1, 1);
        if (errors > 0) throw new Error(`manifest GET: ${errors} errors`);
        const end = Date.now();
        samples.push({ start, end, n: (perSecond * (end - start)) / 1000 });
        const row = await store.db
          .selectFrom("gc_runs")
          .selectAll()
          .where("state", "!=", "running")
          .executeTakeFirst();
        if (row) {
          finished = {
            start: Date.parse(row.start_time),
            end: Date.parse(row.end_time),
            row: row as unknown as Record<string, unknown>,
          };
        }
      }
      if (!finished) throw new Error("no collection finished within 10 minutes");
      const rate = (list: typeof samples) =>
        list.reduce((n, s) => n + s.n, 0) /
        (list.reduce((t, s) => t + (s.end - s.start), 0) / 1000);
      const idle = samples.filter((s) => s.end < finished.start - 500);
      const during = samples.filter((s) => s.start >= finished.start && s.end <= finished.end);
      const overlapping =
        during.length > 0
          ? during
          : samples.filter((s) => s.end > finished.start && s.start < finished.end);
      rows.push({
        pair: `${pair.kind}+${pair.blobs}`,
        manifests,
        blobs: manifests * 5,
        seconds: Number(finished.row.duration_ms) / 1000,
        deletedManifests: Number(finished.row.manifests_deleted),
        deletedBlobs: Number(finished.row.blobs_deleted),
        idleRate: rate(idle),
        duringRate: overlapping.length > 0 ? rate(overlapping) : Number.NaN,
        usageP50: times[Math.floor(times.length * 0.5)],
        usageP99: times[Math.floor(times.length * 0.99)],
      });
      const r = rows[rows.length - 1];
      log(
        `gc ${r.pair}: ${r.seconds}s, deleted ${r.deletedManifests} manifests / ${r.deletedBlobs} blobs, GET ${r.idleRate.toFixed(0)}/s idle, ${r.duringRate.toFixed(0)}/s during, usage p50 ${r.usageP50.toFixed(1)} ms p99 ${r.usageP99.toFixed(1)} ms`,
      );
      if (finished.row.state !== "done") log(`gc failed: ${String(finished.row.error)}`);
      log(
        `gc ${pair.kind}+${pair.blobs}: expected ${seeded.garbageManifests} manifests, ${seeded.garbageBlobs} blobs of garbage`,
      );
    } finally {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      await store.close();
      await s3?.close();
      rmSync(s3dir, { recursive: true, force: true });
      await location.drop();
    }
  }
  return rows;
}
