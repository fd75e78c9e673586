import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { createInterface } from "node:readline";

/** A Lading server running in a child process (child-server.ts). */
export interface ServerProcess {
  registryUrl: string;
  apiUrl: string;
  registryToken: string;
  apiToken: string;
  orgUid: string;
  /** The server process's resident set size now, bytes (from /proc). */
  rss(): number;
  close(): Promise<void>;
}

/** Starts Lading on `store` in a process of its own and waits until it serves. */
export async function startServerProcess(store: "sqlite" | "postgres"): Promise<ServerProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    [new URL("./child-server.ts", import.meta.url).pathname, store],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once("line", resolve);
    child.once("close", (code) => reject(new Error(`the server process exited with ${code}`)));
  });
  lines.close();
  const info = JSON.parse(first) as Omit<ServerProcess, "rss" | "close">;
  return {
    ...info,
    rss() {
      const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
      const kib = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
      return kib * 1024;
    },
    async close() {
      child.stdin?.end();
      await exited;
    },
  };
}
