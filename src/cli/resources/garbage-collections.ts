import { setTimeout as sleep } from "node:timers/promises";
import { createApiClient, type Json, uidPath } from "../api-client.ts";
import type { VerbNode } from "../command-spec.ts";
import { type Column, field, printOne } from "../output.ts";
import type { ResourceDef } from "./crud.ts";

const collection = "/lifecycle/v2/garbage-collections";

/** 1536 → "1.5 KiB": what a reader of the table compares at a glance. */
export function bytesText(value: unknown): string {
  let n = Number(value ?? 0);
  const units = ["B", "KiB", "MiB", "GiB", "TiB"];
  let unit = 0;
  while (n >= 1024 && unit < units.length - 1) {
    n /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${n} B` : `${n.toFixed(1)} ${units[unit]}`;
}

const columns: Column[] = [
  field("uid", "uid"),
  field("started", "startTime"),
  field("trigger", "trigger"),
  { header: "dry run", value: (row) => (row.dryRun ? "yes" : "no") },
  field("state", "state"),
  field("manifests", "manifestsDeleted"),
  field("blobs", "blobsDeleted"),
  { header: "reclaimed", value: (row) => bytesText(row.bytesReclaimed) },
  {
    header: "duration",
    value: (row) =>
      row.state === "running" ? "" : `${(Number(row.durationMs) / 1000).toFixed(1)}s`,
  },
  field("error", "error"),
];

/** Polls a collection until it ends, telling stderr (table output) how long it has run. */
async function untilEnded(
  get: () => Promise<Json>,
  tell: (line: string) => void,
  intervalMs = 1000,
): Promise<Json> {
  const start = Date.now();
  for (;;) {
    const run = await get();
    if (run.state !== "running") return run;
    tell(`running for ${Math.round((Date.now() - start) / 1000)}s…`);
    await sleep(intervalMs);
  }
}

/** `lading storage gc run [--dry-run] [--wait]`: starts a collection through the API. */
const run: VerbNode = {
  kind: "verb",
  name: "run",
  summary: "Start a garbage collection now (the installation's operators only)",
  flags: [
    { name: "dry-run", type: "boolean", help: "count what would be deleted, delete nothing" },
    { name: "wait", type: "boolean", help: "wait for it to end and show what it did" },
  ],
  examples: ["lading storage gc run --dry-run --wait", "lading storage gc list"],
  async run(ctx, parsed) {
    const api = createApiClient(ctx);
    const started = await api.post(`${collection}:run`, {
      dryRun: parsed.flags["dry-run"] === true,
    });
    let shown = started;
    if (parsed.flags.wait === true) {
      const tell = (line: string) => {
        if (ctx.output === "table")
          ctx.stderr.write(`garbage collection ${started.uid}: ${line}\n`);
      };
      shown = await untilEnded(
        () => api.get(`${collection}/${uidPath(String(started.uid))}`),
        tell,
      );
    }
    printOne(ctx, shown, columns);
    return shown.state === "failed" ? 1 : 0;
  },
};

/** Garbage collections: the operators' runs, listed newest first; `run` starts one. */
export const garbageCollections: ResourceDef = {
  name: "gc",
  summary: "Garbage collections of the registry: run one, list and show runs (operators only)",
  collection,
  listKey: "garbageCollections",
  columns,
  standardFilters: false,
  listFilters: [
    {
      name: "state",
      value: "STATE",
      help: "only runs in this state",
      choices: ["running", "done", "failed"],
    },
    {
      name: "trigger",
      value: "TRIGGER",
      help: "only runs started this way",
      choices: ["schedule", "cli", "api"],
    },
  ],
  listQuery: (parsed) => ({
    state: parsed.flags.state as string | undefined,
    trigger: parsed.flags.trigger as string | undefined,
  }),
  delete: false,
  extra: [run],
};
