import { performance } from "node:perf_hooks";

/**
 * The client side of a latency measurement, run in its own process by measureLatency: `<url>
 * <requests> <warm-up requests>` with the Authorization header in LADING_BENCH_AUTH. Sends the
 * requests one after another, reads every body in full, and prints the sorted latencies (ms)
 * as JSON. A `{n}` in the URL becomes the request's number (1000 on), so that each request asks
 * something no earlier one asked and no cache of the server's can answer it.
 */
const [url, count, warm] = process.argv.slice(2);
const headers = { authorization: process.env.LADING_BENCH_AUTH ?? "" };

let sent = 0;

/** One request, its body read to the end; returns the bytes read. */
async function get(): Promise<number> {
  const target = url.replaceAll("{n}", String(1000 + sent++));
  const res = await fetch(target, { headers });
  if (!res.ok) throw new Error(`${target} answered ${res.status}`);
  let bytes = 0;
  for await (const chunk of res.body ?? []) bytes += chunk.byteLength;
  return bytes;
}

for (let i = 0; i < Number(warm); i++) await get();
const times: number[] = [];
for (let i = 0; i < Number(count); i++) {
  const start = performance.now();
  await get();
  times.push(performance.now() - start);
}
process.stdout.write(JSON.stringify(times.sort((a, b) => a - b)));
