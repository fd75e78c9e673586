import { execFile, spawn } from "node:child_process";
import { createWriteStream, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { promisify } from "node:util";
import pg from "pg";
import { type RunningNginx, startNginx } from "./nginx.ts";
import { startS3rver } from "./s3rver.ts";
import { createTestStore, type TestStore } from "./stores.ts";

const run = promisify(execFile);
const cli = new URL("../../bin/lading.js", import.meta.url).pathname;

/** A port free on loopback at the time of asking. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** One `lading serve` process of the cluster. */
export interface Replica {
  index: number;
  /** Its own listeners, bypassing the load balancer. */
  apiAddress: string;
  registryAddress: string;
  pid: number;
  /** Whether the process is still running. */
  alive(): boolean;
  /** Sends `signal` and waits for the process to end. */
  stop(signal?: NodeJS.Signals): Promise<void>;
}

/** Three (or `count`) replicas on one PostgreSQL database and one s3rver, behind nginx. */
export interface ReplicaCluster {
  /** The load balancer's API and registry URLs, which every replica is configured with. */
  apiUrl: string;
  registryUrl: string;
  /** The registry host: the registry token audience and what skopeo names. */
  host: string;
  databaseUrl: string;
  replicas: Replica[];
  nginx: RunningNginx;
  /** The bootstrapped organisation `acme`. */
  org: { groupUid: string; identityUid: string; token: string };
  /** `lading admin token` for `identity` (default audience: the API URL). */
  token(identity: string, audience?: string): Promise<string>;
  /** The shared configuration file. */
  configPath: string;
  /** Waits (up to 15 s) until a replica holds the claim of upload `id`. */
  uploadClaimed(id: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts `count` replicas at once as an operator would: one configuration file naming the
 * database, the bucket and the load balancer's URLs, each replica with its own data directory
 * and ports; then nginx with the configuration in docs/operations.md, and bootstraps `acme`.
 */
export async function startReplicaCluster(
  count = 3,
  extraConfig: Record<string, string | string[]> = {},
): Promise<ReplicaCluster> {
  const dir = mkdtempSync(join(tmpdir(), "lading-replicas-"));
  const store: TestStore = await createTestStore("postgres");
  const s3 = await startS3rver(join(dir, "s3"), "lading-replicas");
  const lb = { registry: await freePort(), api: await freePort() };
  const apiUrl = `http://127.0.0.1:${lb.api}`;
  const registryUrl = `http://127.0.0.1:${lb.registry}`;
  const databaseUrl = store.options.databaseUrl as string;
  const configPath = join(dir, "lading.yaml");
  const settings: Record<string, string | string[]> = {
    "database-url": databaseUrl,
    "blob-store": `s3://lading-replicas/blobs?endpoint=${s3.endpoint}&region=us-east-1&forcePathStyle=true`,
    "api-url": apiUrl,
    "registry-url": registryUrl,
    "log-level": "warn",
    "log-format": "json",
    ...extraConfig,
  };
  writeFileSync(
    configPath,
    Object.entries(settings)
      .map(([k, v]) => `${k}: ${JSON.stringify(v)}`)
      .join("\n"),
  );
  const env = {
    ...process.env,
    AWS_ACCESS_KEY_ID: "S3RVER",
    AWS_SECRET_ACCESS_KEY: "S3RVER",
    LADING_CONFIG: configPath,
  };
  const replicas: Replica[] = [];
  for (let index = 0; index < count; index++) {
    const ports = { api: await freePort(), registry: await freePort() };
    const dataDir = join(dir, `replica-${index}`);
    mkdirSync(dataDir);
    const log = createWriteStream(join(dir, `replica-${index}.log`));
    const child = spawn(
      process.execPath,
      [
        cli,
        "serve",
        "--data-dir",
        dataDir,
        "--api-listen",
        `127.0.0.1:${ports.api}`,
        "--registry-listen",
        `127.0.0.1:${ports.registry}`,
      ],
      { env, stdio: ["ignore", "pipe", "pipe"] },
    );
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    replicas.push({
      index,
      apiAddress: `127.0.0.1:${ports.api}`,
      registryAddress: `127.0.0.1:${ports.registry}`,
      pid: child.pid ?? 0,
      alive: () => child.exitCode === null && child.signalCode === null,
      async stop(signal = "SIGTERM") {
        if (child.exitCode === null && child.signalCode === null) child.kill(signal);
        await exited;
      },
    });
  }
  for (const replica of replicas) {
    for (let i = 0; ; i++) {
      const up = await fetch(`http://${replica.registryAddress}/v2/`).then(
        () => true,
        () => false,
      );
      if (up) break;
      if (!replica.alive() || i > 300) {
        throw new Error(`replica ${replica.index} did not start; see ${dir}`);
      }
      await sleep(100);
    }
  }
  const nginx = await startNginx(
    join(dir, "nginx"),
    {
      registry: replicas.map((r) => r.registryAddress),
      api: replicas.map((r) => r.apiAddress),
    },
    lb,
  );
  const admin = async (args: string[]) =>
    (
      await run(process.execPath, [cli, "admin", ...args, "--data-dir", join(dir, "admin")], {
        env,
      })
    ).stdout;
  const boot = JSON.parse(await admin(["bootstrap", "--org", "acme"])) as ReplicaCluster["org"];
  const token = async (identity: string, audience?: string) =>
    (
      await admin([
        "token",
        "--identity",
        identity,
        "--ttl",
        "2h",
        ...(audience ? ["--audience", audience] : []),
      ])
    ).trim();
  return {
    apiUrl,
    registryUrl,
    host: `127.0.0.1:${lb.registry}`,
    databaseUrl,
    replicas,
    nginx,
    org: boot,
    token,
    configPath,
    async uploadClaimed(id) {
      const db = new pg.Client({ connectionString: databaseUrl });
      await db.connect();
      try {
        for (let i = 0; i < 150; i++) {
          const row = await db.query("SELECT writer FROM uploads WHERE id = $1", [id]);
          if (row.rows[0]?.writer) return;
          await sleep(100);
        }
        throw new Error(`no replica claimed upload ${id}`);
      } finally {
        await db.end();
      }
    },
    async close() {
      await nginx.close();
      await Promise.all(replicas.map((r) => r.stop()));
      await s3.close();
      await store.drop();
      if (!process.env.LADING_KEEP_REPLICAS) rmSync(dir, { recursive: true, force: true });
    },
  };
}
