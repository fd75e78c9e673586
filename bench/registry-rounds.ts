import { type ChildProcess, spawn } from "node:child_process";
import { cpus } from "node:os";
import { createTestStore, type TestStore } from "../test/support/stores.ts";
import { freePort, hasDistribution, startDistribution } from "./distribution.ts";
import {
  download,
  makeBlob,
  pushSmallImage,
  type RegistryTarget,
  uploadChunked,
  uploadMonolithic,
  wrkManifestGets,
} from "./oci-workloads.ts";
import { type LadingProcess, startLadingProcess } from "./registry.ts";

/** One workload in one condition: every round's ratio, their median, and the target. */
export interface RoundsMeasurement {
  condition: "quiet" | "loaded";
  workload: string;
  /** Lading's median, in `unit`. */
  lading: number;
  unit: string;
  /** What Lading is compared with, and the median of the per-round ratios. */
  versus: string;
  ratio: number;
  rounds: number[];
  target: string;
  met: boolean;
}

/** Requests/s of manifest GETs by tag over 16 connections after a second's warm-up. */
async function manifestGets(target: RegistryTarget, path: string, seconds: number) {
  await wrkManifestGets(target, path, 1);
  const { rate, errors } = await wrkManifestGets(target, path, seconds);
  if (errors > 0 || !Number.isFinite(rate)) throw new Error(`${target.name}: ${errors} errors`);
  return rate;
}

/** A bare node:http server answering 1 KiB to every request: the runtime's own ceiling. */
async function startBareServer(): Promise<{ url: string; stop: () => void }> {
  const port = await freePort();
  const program = `const b=Buffer.alloc(1024,97);require("node:http").createServer((q,s)=>{s.setHeader("content-type","application/octet-stream");s.end(b)}).listen(${port},"127.0.0.1",()=>console.log("up"))`;
  const child = spawn(process.execPath, ["-e", program], { stdio: ["ignore", "pipe", "ignore"] });
  await new Promise((resolve) => child.stdout?.once("data", resolve));
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill() };
}

/**
 * A bounded background load: one process per core, each busy 60 % of every 100 ms, as other
 * work on a shared build machine would be. Stopped by the returned function.
 */
function startLoad(): () => void {
  const program = "setInterval(()=>{const e=Date.now()+60;while(Date.now()<e){}},100)";
  const children: ChildProcess[] = cpus().map(() =>
    spawn(process.execPath, ["-e", program], { stdio: "ignore" }),
  );
  return () => {
    for (const child of children) child.kill();
  };
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Issue 24.5: Lading (SQLite, and PostgreSQL for manifest GET) and Distribution measured
 * interleaved in rounds within one run, quiet and then under a background load the bench
 * starts and stops itself; each round runs every workload on every registry back to back, so
 * both see the same machine. Reports the median of the per-round ratios and every round.
 */
export async function measureRegistryRounds(
  log: (line: string) => void,
  options: { rounds?: number; sizeMiB?: number; seconds?: number } = {},
): Promise<RoundsMeasurement[]> {
  const rounds = options.rounds ?? 3;
  const sizeMiB = options.sizeMiB ?? 256;
  const seconds = options.seconds ?? 5;
  if (!hasDistribution())
    throw new Error("the registry rounds need Distribution (docker-registry)");
  const pg: TestStore = await createTestStore("postgres");
  const stops: (() => Promise<void> | void)[] = [() => pg.drop()];
  try {
    log("registry rounds: starting Lading on SQLite and on PostgreSQL, Distribution, node:http…");
    const sqlite: LadingProcess = await startLadingProcess("acme/bench");
    stops.push(() => sqlite.stop());
    const postgres = await startLadingProcess("acme/bench", [], pg.options.databaseUrl);
    stops.push(() => postgres.stop());
    const distribution = await startDistribution();
    stops.push(() => distribution.stop());
    const bare = await startBareServer();
    stops.push(() => bare.stop());
    const theirs: RegistryTarget = {
      name: "distribution",
      url: distribution.url,
      repo: "acme/bench",
    };
    const ours = sqlite.target;
    for (const t of [ours, postgres.target, theirs]) await pushSmallImage(t, "latest");
    const tagPath = (t: RegistryTarget) => `/v2/${t.repo}/manifests/latest`;

    type Sample = Record<string, number>;
    const samples: Record<"quiet" | "loaded", Sample[]> = { quiet: [], loaded: [] };
    for (const condition of ["quiet", "loaded"] as const) {
      const stopLoad = condition === "loaded" ? startLoad() : () => undefined;
      try {
        for (let round = 1; round <= rounds; round++) {
          log(`registry rounds: ${condition}, round ${round} of ${rounds}…`);
          const s: Sample = {};
          // Alternate who goes first, so neither always meets a machine the other warmed.
          const pair = round % 2 ? [ours, theirs] : [theirs, ours];
          for (const t of pair) s[`get:${t.name}`] = await manifestGets(t, tagPath(t), seconds);
          s["get:postgres"] = await manifestGets(
            postgres.target,
            tagPath(postgres.target),
            seconds,
          );
          s["get:bare"] = await manifestGets(
            { name: "node:http", url: bare.url, repo: "" },
            "/",
            seconds,
          );
          for (const t of pair) {
            const mono = await makeBlob(sizeMiB);
            s[`mono:${t.name}`] = sizeMiB / (await uploadMonolithic(t, mono));
            s[`fresh:${t.name}`] = sizeMiB / (await download(t, mono.digest, mono.size));
            const chunked = await makeBlob(sizeMiB);
            s[`chunked:${t.name}`] = sizeMiB / (await uploadChunked(t, chunked, 16));
          }
          samples[condition].push(s);
        }
      } finally {
        stopLoad();
      }
    }

    const rows: RoundsMeasurement[] = [];
    for (const condition of ["quiet", "loaded"] as const) {
      const list = samples[condition];
      const row = (
        workload: string,
        key: string,
        unit: string,
        versus: string,
        ratioOf: (s: Sample) => number,
        min: number,
      ) => {
        const ratios = list.map(ratioOf);
        const ratio = median(ratios);
        rows.push({
          condition,
          workload,
          lading: median(list.map((s) => s[key])),
          unit,
          versus,
          ratio,
          rounds: ratios,
          target: `>= ${min}x`,
          met: ratio >= min,
        });
      };
      const vs = (key: string) => (s: Sample) => s[`${key}:lading`] / s[`${key}:distribution`];
      row("manifest GET by tag, SQLite", "get:lading", "req/s", "Distribution", vs("get"), 10);
      row(
        "manifest GET by tag, SQLite",
        "get:lading",
        "req/s",
        "node:http 1 KiB",
        (s) => s["get:lading"] / s["get:bare"],
        0.25,
      );
      row(
        "manifest GET by tag, PostgreSQL",
        "get:postgres",
        "req/s",
        "Lading on SQLite",
        (s) => s["get:postgres"] / s["get:lading"],
        0.8,
      );
      row(
        `first pull after push, ${sizeMiB} MiB`,
        "fresh:lading",
        "MiB/s",
        "Distribution",
        vs("fresh"),
        1,
      );
      row(
        `chunked upload, 16 MiB PATCHes`,
        "chunked:lading",
        "MiB/s",
        "Distribution",
        vs("chunked"),
        1.5,
      );
      row(
        `monolithic upload, ${sizeMiB} MiB`,
        "mono:lading",
        "MiB/s",
        "Distribution",
        vs("mono"),
        1.5,
      );
    }
    return rows;
  } finally {
    for (const stop of stops.reverse()) await stop();
  }
}
