import { execFile, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import { createMetadataStore } from "../src/store/metadata/index.ts";
import { freePort } from "./distribution.ts";
import type { RegistryTarget } from "./oci-workloads.ts";

const run = promisify(execFile);
const cli = new URL("../bin/lading.js", import.meta.url).pathname;

/** A Lading server in its own process, as the registry benchmark measures it. */
export interface LadingProcess {
  target: RegistryTarget;
  dataDir: string;
  /** The PostgreSQL database it runs on, when not the embedded SQLite store. */
  databaseUrl?: string;
  pid: number;
  stop(): Promise<void>;
}

/**
 * Starts `lading serve` on loopback with a fresh data directory and an owner token for the
 * registry; `serveFlags` are added to `serve` only. With `databaseUrl` (an empty database) the
 * metadata is there instead of in the data directory.
 */
export async function startLadingProcess(
  repo: string,
  serveFlags: string[] = [],
  databaseUrl?: string,
): Promise<LadingProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), "lading-bench-"));
  const [apiPort, registryPort] = [await freePort(), await freePort()];
  const flags = [
    ...(databaseUrl ? ["--database-url", databaseUrl] : []),
    "--data-dir",
    dataDir,
    "--api-listen",
    `127.0.0.1:${apiPort}`,
    "--registry-listen",
    `127.0.0.1:${registryPort}`,
  ];
  const org = repo.split("/")[0];
  const boot = JSON.parse(
    (await run(process.execPath, [cli, "admin", "bootstrap", "--org", org, ...flags])).stdout,
  );
  const audience = `127.0.0.1:${registryPort}`;
  const token = (
    await run(process.execPath, [
      cli,
      "admin",
      "token",
      "--identity",
      boot.identityUid,
      "--audience",
      audience,
      "--ttl",
      "2h",
      ...flags,
    ])
  ).stdout.trim();
  const child = spawn(
    process.execPath,
    [cli, "serve", "--log-level", "warn", ...serveFlags, ...flags],
    // LADING_BENCH_VERBOSE=1 shows the server's own complaints (a crash, a refused flag).
    { stdio: ["ignore", "ignore", process.env.LADING_BENCH_VERBOSE ? "inherit" : "ignore"] },
  );
  const url = `http://127.0.0.1:${registryPort}`;
  // Up to a minute: a loaded machine starts a server slowly.
  for (let i = 0; i < 600; i++) {
    const up = await fetch(`${url}/v2/`, { headers: { authorization: `Bearer ${token}` } }).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await sleep(100);
  }
  return {
    target: { name: "lading", url, repo, token },
    dataDir,
    databaseUrl,
    pid: child.pid ?? 0,
    async stop() {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Peak resident memory of a process so far, in MiB (VmHWM). */
export function peakRssMiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return kb / 1024;
}

/**
 * p50/p99 of tag-history requests for a tag with `records` history records, each asking for a
 * 1000-record window at a random place. Records are written straight into the store.
 */
export async function historyLatency(lading: LadingProcess, records = 100_000, requests = 1000) {
  const store = createMetadataStore({ dataDir: lading.dataDir });
  const [org, ...rest] = lading.target.repo.split("/");
  const repo = await store.db
    .selectFrom("repos")
    .innerJoin("groups", "groups.uid", "repos.root_uid")
    .select("repos.uid")
    .where("groups.name", "=", org)
    .where("repos.name", "=", rest.join("/"))
    .executeTakeFirstOrThrow();
  const base = Date.parse("2020-01-01T00:00:00.000Z");
  const time = (i: number) => new Date(base + i * 60_000).toISOString();
  for (let i = 0; i < records; i += 1000) {
    const rows = Array.from({ length: 1000 }, (_, j) => ({
      repo_uid: repo.uid,
      tag: "nightly",
      seq: String(i + j + 1),
      digest: `sha256:${(i + j + 1).toString(16).padStart(64, "0")}`,
      update_time: time(i + j),
    }));
    await store.db.insertInto("tag_history").values(rows).execute();
  }
  await store.close();
  const times: number[] = [];
  const headers = { authorization: `Bearer ${lading.target.token}` };
  for (let i = 0; i < requests + 50; i++) {
    const from = Math.floor(Math.random() * (records - 1000));
    const url = `${lading.target.url}/v2/${lading.target.repo}/_lading/history/nightly?start=${time(from)}&end=${time(from + 999)}`;
    const start = performance.now();
    const res = await fetch(url, { headers });
    const body = (await res.json()) as { history: unknown[] };
    if (body.history?.length !== 1000)
      throw new Error(`history window returned ${body.history?.length} records`);
    if (i >= 50) times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return { p50: times[requests / 2], p99: times[Math.floor(requests * 0.99)] };
}
