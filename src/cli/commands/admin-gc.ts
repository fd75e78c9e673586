import { randomUUID } from "node:crypto";
import {
  CollectionBusyError,
  collectGarbage,
  quotaOf,
  reportFromRow,
  setQuota,
  storageUsage,
} from "../../lifecycle/index.ts";
import { createLogger } from "../../server/index.ts";
import { createBlobStore } from "../../store/blobs/index.ts";
import { UsageError } from "../cli-context.ts";
import { flagText, type GroupNode, type LocalVerbNode, type ParsedArgs } from "../command-spec.ts";
import type { StoreTools } from "./admin-store.ts";
import { configFlagsNamed, storeFlagNames } from "./config-flags.ts";

type WithStore = (
  parsed: ParsedArgs,
  work: (tools: StoreTools) => Promise<void>,
) => Promise<number>;

/** Most runs `--history` lists. */
const maxHistory = 1000;

/** `lading admin gc [--dry-run] [--history]`: one collection now, or the record of past ones. */
export function adminGcVerb(withStore: WithStore): LocalVerbNode {
  return {
    kind: "local",
    name: "gc",
    summary: "Collect the registry's garbage now (or --dry-run, or list runs with --history)",
    flags: [
      { name: "dry-run", type: "boolean", help: "count what would be deleted, delete nothing" },
      { name: "history", type: "boolean", help: "list past runs, newest first, as JSON lines" },
      {
        name: "limit",
        value: "N",
        help: `runs --history lists (default 20, at most ${maxHistory})`,
      },
      ...configFlagsNamed(...storeFlagNames, "blob-store", "gc-grace", "gc-history-retention"),
    ],
    examples: ["lading admin gc --dry-run --data-dir ./.lading", "lading admin gc --history"],
    run: async (parsed, out) => {
      let status = 0;
      const code = await withStore(parsed, async ({ config, store }) => {
        if (parsed.flags.history === true) {
          const limit = Number(flagText(parsed, "limit") ?? 20);
          if (!Number.isInteger(limit) || limit < 1 || limit > maxHistory) {
            throw new UsageError(`--limit must be a whole number from 1 to ${maxHistory}`);
          }
          const rows = await store.db
            .selectFrom("gc_runs")
            .selectAll()
            .orderBy("start_time", "desc")
            .orderBy("uid", "desc")
            .limit(limit)
            .execute();
          for (const row of rows) out.stdout.write(`${JSON.stringify(reportFromRow(row))}\n`);
          return;
        }
        const blobs = await createBlobStore(config);
        try {
          const report = await collectGarbage(
            {
              db: store.db,
              blobs,
              log: createLogger({ level: "warn" }),
              graceMs: config.gc.graceMs,
              historyRetentionMs: config.gc.historyRetentionMs,
              holder: `cli-${randomUUID()}`,
            },
            { trigger: "cli", dryRun: parsed.flags["dry-run"] === true },
          );
          out.stdout.write(`${JSON.stringify(report)}\n`);
          if (report.state !== "done") status = 1;
        } catch (error) {
          if (!(error instanceof CollectionBusyError)) throw error;
          out.stderr.write(`lading: ${error.message}; try again once it has finished\n`);
          status = 1;
        }
      });
      return code || status;
    },
  };
}

/** The organisation named `name` (a root group), or a usage error. */
async function orgUid(store: StoreTools["store"], name: string): Promise<string> {
  const row = await store.db
    .selectFrom("groups")
    .select("uid")
    .where("parent_uid", "=", "")
    .where("name", "=", name)
    .executeTakeFirst();
  if (!row) throw new UsageError(`no organisation is named ${name}`);
  return row.uid;
}

/** `lading admin storage usage|quota`: bytes stored per organisation, and byte quotas. */
export function adminStorageCommands(withStore: WithStore): GroupNode {
  const usage: LocalVerbNode = {
    kind: "local",
    name: "usage",
    summary: "Bytes an organisation stores (each distinct blob once) and its quota, as JSON",
    flags: [
      { name: "org", value: "NAME", required: true, help: "the organisation" },
      ...configFlagsNamed(...storeFlagNames),
    ],
    run: (parsed, out) =>
      withStore(parsed, async ({ store }) => {
        const uid = await orgUid(store, flagText(parsed, "org") ?? "");
        const used = await storageUsage(store.db, { orgUid: uid });
        const quota = await quotaOf(store.db, uid);
        out.stdout.write(`${JSON.stringify({ org: uid, ...used, quotaBytes: quota ?? null })}\n`);
      }),
  };
  const quota: LocalVerbNode = {
    kind: "local",
    name: "quota",
    summary: "Set (--bytes N) or remove (--clear) an organisation's storage quota",
    flags: [
      { name: "org", value: "NAME", required: true, help: "the organisation" },
      { name: "bytes", value: "N", help: "the quota in bytes" },
      { name: "clear", type: "boolean", help: "remove the quota" },
      ...configFlagsNamed(...storeFlagNames),
    ],
    run: (parsed, out) =>
      withStore(parsed, async ({ store }) => {
        const text = flagText(parsed, "bytes");
        const clear = parsed.flags.clear === true;
        if ((text === undefined) === !clear) throw new UsageError("give --bytes N or --clear");
        const bytes = text === undefined ? undefined : Number(text);
        if (bytes !== undefined && (!Number.isSafeInteger(bytes) || bytes < 0)) {
          throw new UsageError("--bytes must be a whole number of bytes");
        }
        const uid = await orgUid(store, flagText(parsed, "org") ?? "");
        await setQuota(store.db, uid, bytes);
        out.stdout.write(`${JSON.stringify({ org: uid, quotaBytes: bytes ?? null })}\n`);
      }),
  };
  return {
    kind: "group",
    name: "storage",
    summary: "Storage usage and quotas per organisation",
    children: [usage, quota],
  };
}
