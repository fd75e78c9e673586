import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);
const client = new URL("./latency-client.ts", import.meta.url).pathname;

/** Latency percentiles in ms. */
export interface Latency {
  p50: number;
  p99: number;
}

/**
 * Times `requests` sequential GETs of `url` from a client in its own process, as a load
 * generator runs: the client's parsing and garbage collection then never count as the
 * server's latency, which they do when both share one event loop and heap. The first `warm`
 * requests are not timed: they bring both sides' code to its compiled, steady state.
 */
export async function measureLatency(
  url: string,
  authorization: string,
  requests: number,
  warm = 200,
): Promise<Latency> {
  const { stdout } = await run(process.execPath, [client, url, String(requests), String(warm)], {
    env: { ...process.env, LADING_BENCH_AUTH: authorization },
    maxBuffer: 16 << 20,
  });
  const times = JSON.parse(stdout) as number[];
  return { p50: times[Math.floor(requests / 2)], p99: times[Math.floor(requests * 0.99)] };
}
