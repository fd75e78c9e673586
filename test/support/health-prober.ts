// A child process that GETs the URL in argv[2] one request after another until its stdin
// closes, then prints the latencies (ms) as JSON. Being another process, a stall of the
// server's event loop shows in its answers' latency and never in this prober's own timers.
const url = process.argv[2];
const times: number[] = [];
let stopped = false;
process.stdin.resume();
process.stdin.on("end", () => {
  stopped = true;
});
while (!stopped) {
  const start = performance.now();
  const res = await fetch(url, { headers: { "accept-encoding": "identity" } });
  await res.text();
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}`);
  times.push(performance.now() - start);
  await new Promise((resolve) => setTimeout(resolve, 20));
}
process.stdout.write(JSON.stringify(times));
