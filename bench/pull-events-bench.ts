import { createMetadataStore } from "../src/store/metadata/index.ts";
import { manifestRate, pushSmallImage } from "./oci-workloads.ts";
import { type LadingProcess, startLadingProcess } from "./registry.ts";

/** Manifest GETs with pull events on and off, and what the events cost. */
export interface PullEventsMeasurement {
  /** Requests per second with pull events on. */
  on: number;
  /** Requests per second with `--events-pulls false`. */
  off: number;
  /** on / off: the issue asks for at least 0.9. */
  ratio: number;
  /** Pull events written by the server with them on, against the GETs it answered. */
  written: number;
  answered: number;
}

async function pullEvents(lading: LadingProcess): Promise<number> {
  const store = createMetadataStore({ dataDir: lading.dataDir });
  try {
    const row = await store.db
      .selectFrom("events")
      .select((eb) => eb.fn.countAll<string | number>().as("n"))
      .where("type", "=", "dev.lading.registry.pull.v1")
      .executeTakeFirstOrThrow();
    return Number(row.n);
  } finally {
    await store.close();
  }
}

/**
 * Manifest GET req/s (16 connections) of two servers on SQLite side by side, one writing pull
 * events and one not, measured in alternating rounds so that both see the same machine load;
 * then the pull events the first one wrote, which must be one per GET.
 */
export async function measurePullEvents(
  log: (line: string) => void,
  requests = Number(process.env.LADING_BENCH_PULLS ?? 20_000),
  rounds = 3,
): Promise<PullEventsMeasurement> {
  const on = await startLadingProcess("acme/pulls");
  const off = await startLadingProcess("acme/pulls", ["--events-pulls", "false"]);
  try {
    const digests = [
      await pushSmallImage(on.target, "latest"),
      await pushSmallImage(off.target, "latest"),
    ];
    // Warm both up (JIT, page cache, manifest cache) before measuring.
    await manifestRate(on.target, "GET", digests[0], 2000);
    await manifestRate(off.target, "GET", digests[1], 2000);
    // The last batch is written within one flush window (250 ms) of the last pull.
    const settle = () => new Promise((resolve) => setTimeout(resolve, 1000));
    await settle();
    const before = await pullEvents(on);
    const rates = { on: [] as number[], off: [] as number[] };
    for (let round = 0; round < rounds; round++) {
      rates.on.push(await manifestRate(on.target, "GET", digests[0], requests));
      rates.off.push(await manifestRate(off.target, "GET", digests[1], requests));
      log(
        `pull events round ${round + 1}: on ${rates.on[round].toFixed(0)} req/s, off ${rates.off[round].toFixed(0)} req/s`,
      );
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const answered = rounds * requests;
    await settle();
    const written = (await pullEvents(on)) - before;
    const result = { on: median(rates.on), off: median(rates.off), written, answered };
    return { ...result, ratio: result.on / result.off };
  } finally {
    await Promise.all([on.stop(), off.stop()]);
  }
}
