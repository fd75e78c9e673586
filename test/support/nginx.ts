import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";

/** Debian's nginx-light puts the binary here. */
export const nginxPath = "/usr/sbin/nginx";

const operationsDoc = new URL("../../docs/operations.md", import.meta.url);

/** The nginx block of docs/operations.md ("Running several replicas"), as an operator reads it. */
export function documentedNginxConfig(): string {
  const text = readFileSync(operationsDoc, "utf8");
  const block = /```nginx\n([\s\S]*?)```/.exec(text)?.[1];
  if (!block) throw new Error("docs/operations.md has no nginx block");
  return block;
}

/** Where the replicas listen: the registry and the API listener of each. */
export interface Upstreams {
  registry: string[];
  api: string[];
}

/**
 * The documented configuration with the example upstream servers replaced by `upstreams` and
 * the two `listen` lines by `ports` (registry first, as in the docs). Throws when the docs no
 * longer have the shape replaced here, so the test and the docs cannot drift apart silently.
 */
export function nginxConfigFor(upstreams: Upstreams, ports: { registry: number; api: number }) {
  let text = documentedNginxConfig();
  const servers = (addresses: string[]) => addresses.map((a) => `    server ${a};`).join("\n");
  const upstream = (name: string, addresses: string[]) => {
    const pattern = new RegExp(`(upstream ${name} \\{\\n)((?: {4}server [^\\n]+;\\n)+)`);
    if (!pattern.test(text)) throw new Error(`the documented upstream ${name} changed shape`);
    text = text.replace(pattern, (_, head: string) => `${head}${servers(addresses)}\n`);
  };
  upstream("lading_registry", upstreams.registry);
  upstream("lading_api", upstreams.api);
  const listens = text.match(/^ {4}listen \d+;$/gm) ?? [];
  if (listens.length !== 2) throw new Error("the documented config should have two listen lines");
  let index = 0;
  text = text.replace(/^ {4}listen \d+;$/gm, () => {
    const port = index++ === 0 ? ports.registry : ports.api;
    return `    listen 127.0.0.1:${port};`;
  });
  return text;
}

/** A running nginx and the upstream each request it proxied went to. */
export interface RunningNginx {
  /** Access-log lines so far: method, path, status and upstream address. */
  requests(): { method: string; path: string; status: number; upstream: string }[];
  /** Replaces the upstreams (e.g. fewer replicas) and reloads. */
  reload(upstreams: Upstreams): Promise<void>;
  close(): Promise<void>;
}

/**
 * Starts nginx in the foreground with the documented configuration (see nginxConfigFor) in
 * `dir`; one worker, so round robin is strict and requests alternate between replicas.
 */
export async function startNginx(
  dir: string,
  upstreams: Upstreams,
  ports: { registry: number; api: number },
): Promise<RunningNginx> {
  const temp = join(dir, "temp");
  mkdirSync(temp, { recursive: true, mode: 0o777 });
  const accessLog = join(dir, "access.log");
  const conf = join(dir, "nginx.conf");
  const write = (u: Upstreams) =>
    writeFileSync(
      conf,
      [
        "worker_processes 1;",
        `pid ${join(dir, "nginx.pid")};`,
        `error_log ${join(dir, "error.log")} warn;`,
        "events { worker_connections 1024; }",
        "http {",
        ...["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map(
          (kind) => `${kind}_temp_path ${join(temp, kind)};`,
        ),
        "log_format replicas '$request_method $uri $status $upstream_addr';",
        `access_log ${accessLog} replicas;`,
        nginxConfigFor(u, ports),
        "}",
      ].join("\n"),
    );
  write(upstreams);
  const args = ["-e", join(dir, "error.log"), "-p", dir, "-c", conf];
  const child: ChildProcess = spawn(nginxPath, [...args, "-g", "daemon off;"], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (d) => {
    stderr += d;
  });
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  for (let i = 0; ; i++) {
    const up = await fetch(`http://127.0.0.1:${ports.registry}/v2/`).then(
      () => true,
      () => false,
    );
    if (up) break;
    if (child.exitCode !== null || i > 100) {
      const log = existsSync(join(dir, "error.log")) ? readFileSync(join(dir, "error.log")) : "";
      throw new Error(`nginx did not start: ${stderr}${log}`);
    }
    await sleep(100);
  }
  return {
    requests() {
      if (!existsSync(accessLog)) return [];
      return readFileSync(accessLog, "utf8")
        .split("\n")
        .filter((line) => line !== "")
        .map((line) => {
          const [method, path, status, upstream] = line.split(" ");
          return { method, path, status: Number(status), upstream };
        });
    },
    async reload(next) {
      write(next);
      child.kill("SIGHUP");
      // The old worker finishes its requests; new connections get the new upstreams.
      await sleep(500);
    },
    async close() {
      child.kill("SIGQUIT");
      await exited;
    },
  };
}
