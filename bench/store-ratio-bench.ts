import { createTestStore } from "../test/support/stores.ts";
import { pushSmallImage, wrkManifestGets } from "./oci-workloads.ts";
import { startLadingProcess } from "./registry.ts";

/** Manifest GET by tag on SQLite and on PostgreSQL, measured in alternating rounds. */
export interface StoreRatioMeasurement {
  /** Requests per second in each round. */
  sqlite: number[];
  postgres: number[];
  /** Non-2xx answers and socket errors over every round (must be 0). */
  errors: number;
  /** The median of the rounds' PostgreSQL / SQLite ratios: issue 24 asks for at least 0.8. */
  ratio: number;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/**
 * `npm run bench -- store-ratio`: two Lading processes, one on SQLite and one on PostgreSQL (a
 * fresh database), each with one small image pushed, measured with wrk (-t2 -c16) on
 * `GET /v2/<repo>/manifests/latest` in alternating rounds, so both see the same machine load
 * (the first of each pair changes every round, which cancels what the order does). A Lading
 * token (not a registry token) is used: its grants are read on every request, the most work
 * a GET does.
 */
export async function measureStoreRatio(
  log: (line: string) => void,
  seconds = Number(process.env.LADING_BENCH_RATIO_SECONDS ?? 5),
  rounds = Number(process.env.LADING_BENCH_RATIO_ROUNDS ?? 5),
): Promise<StoreRatioMeasurement> {
  const database = await createTestStore("postgres");
  const servers = {
    sqlite: await startLadingProcess("acme/ratio"),
    postgres: await startLadingProcess("acme/ratio", [], database.options.databaseUrl),
  };
  const rates = { sqlite: [] as number[], postgres: [] as number[] };
  let errors = 0;
  try {
    const wrk = (kind: "sqlite" | "postgres", duration: number) => {
      const { target } = servers[kind];
      return wrkManifestGets(target, `/v2/${target.repo}/manifests/latest`, duration);
    };
    for (const kind of ["sqlite", "postgres"] as const) {
      await pushSmallImage(servers[kind].target, "latest");
      // Warm-up: JIT, the pool's connections, the manifest cache.
      await wrk(kind, 2);
    }
    for (let round = 0; round < rounds; round++) {
      const order =
        round % 2 === 0 ? (["sqlite", "postgres"] as const) : (["postgres", "sqlite"] as const);
      for (const kind of order) {
        const result = await wrk(kind, seconds);
        rates[kind].push(result.rate);
        errors += result.errors;
      }
      log(
        `store ratio round ${round + 1}: SQLite ${rates.sqlite[round].toFixed(0)} req/s, PostgreSQL ${rates.postgres[round].toFixed(0)} req/s, ratio ${(rates.postgres[round] / rates.sqlite[round]).toFixed(2)}`,
      );
    }
  } finally {
    await Promise.all([servers.sqlite.stop(), servers.postgres.stop()]);
    await database.drop();
  }
  return {
    ...rates,
    errors,
    ratio: median(rates.postgres.map((p, i) => p / rates.sqlite[i])),
  };
}
