import { spawn } from "node:child_process";

/** What a probe of `/healthz` saw while it ran. */
export interface ProbeReport {
  requests: number;
  worstMs: number;
  p99Ms: number;
  /** Highest RSS of this process sampled, bytes. */
  peakRss: number;
}

/**
 * GETs `url` from a child process (health-prober.ts), one request after another, until
 * stopped, and samples this process's RSS every 100 ms. A server whose event loop is blocked
 * answers late, so the worst latency is the longest stall.
 */
export function probeHealth(url: string) {
  let peakRss = process.memoryUsage().rss;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 100);
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
      clearInterval(sampler);
      child.stdin.end();
      const code = await exited;
      if (code !== 0) throw new Error(`the health prober exited with ${code}`);
      const sorted = (JSON.parse(stdout) as number[]).sort((a, b) => a - b);
      return {
        requests: sorted.length,
        worstMs: sorted.at(-1) ?? 0,
        p99Ms: sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0,
        peakRss,
      };
    },
  };
}

/**
 * Polls this process's RSS until it is under `bytes` (true) or `ms` pass (false); `collect`
 * (a forced garbage collection) runs before each look.
 */
export async function rssFallsUnder(
  bytes: number,
  ms: number,
  collect: () => void = () => {},
): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    collect();
    if (process.memoryUsage().rss < bytes) return true;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  return process.memoryUsage().rss < bytes;
}
