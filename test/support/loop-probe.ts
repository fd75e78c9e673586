import { spawn } from "node:child_process";

/** What a probe of `/healthz` saw while it ran. */
export interface ProbeReport {
  requests: number;
  worstMs: number;
  p99Ms: number;
}

/**
 * GETs `url` from a child process (health-prober.ts), one request after another, until
 * stopped. A server whose event loop is blocked answers late, so the worst latency is its
 * longest stall; the prober being a process of its own, its timers never stall with it.
 */
export function probeHealth(url: string) {
  const child = spawn(
    process.execPath,
    [new URL("./health-prober.ts", import.meta.url).pathname, url],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  let stdout = "";
  child.stdout.on("data", (d) => {
    stdout += d;
  });
  const exited = new Promise<number | null>((resolve) => child.on("close", resolve));
  return {
    async stop(): Promise<ProbeReport> {
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`the health prober exited with ${code}`);
      const sorted = (JSON.parse(stdout) as number[]).sort((a, b) => a - b);
      return {
        requests: sorted.length,
        worstMs: sorted.at(-1) ?? 0,
        p99Ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0,
      };
    },
  };
}
