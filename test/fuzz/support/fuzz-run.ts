import { relative } from "node:path";
import type { TestContext } from "node:test";
import fc from "fast-check";
import type { HealthProbe } from "./health-probe.ts";

/**
 * The seed every property derives its own from. Fixed so that `npm test` explores the same
 * cases on every run and a failure seen once is seen again; LADING_FUZZ_SEED explores others.
 */
export const fuzzSeed = seedFrom(process.env.LADING_FUZZ_SEED);

/** LADING_FUZZ_RUNS: cases per property, replacing every budget (for long local runs). */
const runsOverride = positive(process.env.LADING_FUZZ_RUNS);

/**
 * Per-test timeout: generous inside the budgets (shrinking a failure may run past them), none
 * when LADING_FUZZ_RUNS asks for a long run.
 */
export const fuzzTestTimeout = runsOverride === undefined ? 60_000 : Number.POSITIVE_INFINITY;

/**
 * How much one property explores in the default run: `runs` cases, the same ones on every
 * run, unless `ms` runs out first (a loaded machine then checks a prefix of them).
 */
export interface Budget {
  runs: number;
  ms: number;
}

/** What `fuzz` needs besides the property itself. */
export interface FuzzOptions {
  /** The test file, for the rerun command printed on failure (`import.meta.filename`). */
  file: string;
  budget: Budget;
  /** Checked after every case: a slow /healthz during a case fails that case. */
  probe?: HealthProbe;
}

/**
 * Runs `check` on values of `arb` as the property named after test `t` and throws on the first
 * failure, after shrinking, with the seed, the rerun command and the smallest failing value.
 */
export async function fuzz<T>(
  t: TestContext,
  arb: fc.Arbitrary<T>,
  check: (value: T) => Promise<void>,
  options: FuzzOptions,
): Promise<void> {
  const { probe } = options;
  const name = t.name;
  // What ran last and what failed first, for when the time budget cuts fast-check short: a
  // case that blocks the event loop outlasts the budget, and fast-check then reports only
  // the interruption.
  let running = "";
  let firstFailure: string | undefined;
  const property = fc.asyncProperty(arb, async (value) => {
    running = fc.stringify(value);
    probe?.label(running);
    try {
      await check(value);
      probe?.label(undefined);
      const slow = await probe?.drain();
      if (slow && slow.length > 0)
        throw new Error(`/healthz was slow during this case: ${slow[0]}`);
    } catch (error) {
      firstFailure ??= `${running}\n${error instanceof Error ? error.message : String(error)}`;
      throw error;
    } finally {
      probe?.label(undefined);
    }
  });
  const plugins = runsOverride === undefined ? [fc.interruptAfterTimeLimit(options.budget.ms)] : [];
  const numRuns = runsOverride ?? options.budget.runs;
  const details = await fc.check(property, {
    seed: seedOf(name),
    numRuns,
    plugins,
    includeErrorInReport: true,
  });
  if (details.failed) {
    const file = relative(process.cwd(), options.file);
    const pattern = name.replace(/[\\^$.*+?()[\]{}|"]/g, "\\$&");
    throw new Error(
      [
        `fuzz property "${name}" failed with LADING_FUZZ_SEED=${fuzzSeed}`,
        `rerun: LADING_FUZZ_SEED=${fuzzSeed} node --test --test-name-pattern="${pattern}" ${file}`,
        fc.defaultReportMessage(details) ?? "",
        details.counterexample === null && firstFailure
          ? `first failing case (not shrunk: the time budget ran out): ${firstFailure}`
          : "",
        details.counterexample === null && !firstFailure
          ? `the time budget ran out during this case, which outlasted it: ${running}`
          : "",
      ].join("\n"),
    );
  }
  const cut = details.interrupted ? " (time budget reached)" : "";
  t.diagnostic(`${details.numRuns} of ${numRuns} cases, seed ${fuzzSeed}${cut}`);
}

/** A property's own seed: the suite seed mixed with its name, so properties do not correlate. */
function seedOf(name: string): number {
  let h = fuzzSeed | 0;
  for (const ch of name) h = Math.imul(h ^ ch.charCodeAt(0), 0x01000193);
  return h | 0;
}

function seedFrom(text: string | undefined): number {
  if (text === undefined || text === "") return 20_260_611;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`LADING_FUZZ_SEED must be an integer: ${text}`);
  return seed;
}

function positive(text: string | undefined): number | undefined {
  if (text === undefined || text === "") return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) {
    throw new Error(`LADING_FUZZ_RUNS must be a positive integer: ${text}`);
  }
  return n;
}
