import http from "node:http";

/** A probe that keeps asking `GET /healthz` while the fuzzer runs. */
export interface HealthProbe {
  /** Names the case being run, so that a slow probe says what it overlapped. */
  label(text: string | undefined): void;
  /** Waits for the probe in flight, then returns (and forgets) the slow probes seen so far. */
  drain(): Promise<string[]>;
  /** Stops probing; resolves once the last probe has finished. */
  stop(): Promise<void>;
}

/** How the probe paces itself and what counts as slow. */
export interface HealthProbeOptions {
  /** Pause between probes. Default 50 ms: a stall of the limit cannot fall between two probes. */
  intervalMs?: number;
  /** Longest acceptable answer time. Default 1 s. */
  limitMs?: number;
}

/** CPU time of this thread (the event loop's), in milliseconds. */
const loopCpuMs = () => {
  const { user, system } = process.threadCpuUsage();
  return (user + system) / 1000;
};

/**
 * Starts probing `<apiUrl>/healthz` on a fresh connection each time (so accepting connections
 * is probed too). A probe's time counts from when it was due, not when its timer fired: the
 * server runs in this process, so a blocked event loop delays the timer as much as the answer.
 *
 * A late answer counts as slow only when the event loop's thread spent most of the limit
 * computing meanwhile: on a shared, overloaded machine the wall clock alone would blame the
 * server for the neighbours' work. No answer at all within three limits always counts.
 */
export function startHealthProbe(apiUrl: string, options: HealthProbeOptions = {}): HealthProbe {
  const intervalMs = options.intervalMs ?? 50;
  const limitMs = options.limitMs ?? 1000;
  const slow: string[] = [];
  let current: string | undefined;
  let stopped = false;
  let inFlight: Promise<void> = Promise.resolve();

  const probeOnce = (due: number, cpuAtStart: number, during: string | undefined) =>
    new Promise<void>((resolve) => {
      const report = (what: string) => {
        const ms = Math.round(performance.now() - due);
        const cpu = Math.round(loopCpuMs() - cpuAtStart);
        const context = during ? ` during ${during.slice(0, 2000)}` : "";
        slow.push(`${what} after ${ms} ms (event loop busy ${cpu} ms)${context}`);
        resolve();
      };
      const req = http.get(`${apiUrl}/healthz`, { agent: false }, (res) => {
        res.resume();
        res.once("end", () => {
          const ms = performance.now() - due;
          const busy = loopCpuMs() - cpuAtStart;
          if (res.statusCode !== 200) report(`status ${res.statusCode}`);
          else if (ms > limitMs && busy > limitMs * 0.75) report("answered");
          else resolve();
        });
        res.once("error", (err) => report(`response error ${err.message}`));
      });
      req.setTimeout(limitMs * 3, () => {
        req.destroy();
        report("no answer");
      });
      req.once("error", (err) => report(`error ${err.message}`));
    });

  const loop = async () => {
    while (!stopped) {
      const due = performance.now() + intervalMs;
      const cpu = loopCpuMs();
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
      if (stopped) break;
      inFlight = probeOnce(due, cpu, current);
      await inFlight;
    }
  };
  const running = loop();

  return {
    label(text) {
      current = text;
    },
    async drain() {
      // An overdue probe timer fires before the next check phase: let it start first.
      await new Promise((resolve) => setImmediate(resolve));
      await inFlight;
      return slow.splice(0);
    },
    async stop() {
      stopped = true;
      await running;
    },
  };
}
