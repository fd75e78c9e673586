import { measureAdvisories } from "./advisory-bench.ts";

/**
 * The advisory measurements of one store, for run.ts: `<sqlite|postgres> <count>`; progress on
 * stderr, the measurements as JSON on stdout. Each store gets a process of its own, so the
 * server measured second does not run in a heap the first one's 100,000 advisories filled.
 */
const [kind, count] = process.argv.slice(2);
if (kind !== "sqlite" && kind !== "postgres") throw new Error(`unknown store ${kind}`);
const rows = await measureAdvisories(kind, Number(count), (line) =>
  process.stderr.write(`${line}\n`),
);
process.stdout.write(JSON.stringify(rows));
