import { CliError, createApiClient, type Json, send } from "../api-client.ts";
import { type CliContext, UsageError } from "../cli-context.ts";
import { flagText, type ParsedArgs, type VerbNode } from "../command-spec.ts";
import { resolveRepo } from "../names.ts";
import { type Column, field, printList } from "../output.ts";
import { summariseDiff } from "./image-diff.ts";

/** Moves summarised by `--changes` unless --limit says otherwise: each is one diff call. */
export const defaultChangesLimit = 50;

/** Splits `<org>/<image>:<tag>`. */
export function parseTagReference(text: string): { name: string; tag: string } {
  const colon = text.lastIndexOf(":");
  if (colon <= text.lastIndexOf("/") || colon <= 0 || !text.slice(0, colon).includes("/")) {
    throw new UsageError(`expected <org>/<image>:<tag>, got "${text}"`);
  }
  return { name: text.slice(0, colon), tag: text.slice(colon + 1) };
}

async function registryJson(ctx: CliContext, path: string): Promise<Json> {
  const token = await ctx.token(ctx.registryAudience);
  const res = await send(
    `${ctx.registryUrl}${path}`,
    { headers: { authorization: `Bearer ${token}` } },
    "registry",
  );
  const body = (await res.json().catch(() => ({}))) as Json;
  if (res.ok) return body;
  const errors = (body.errors as Json[] | undefined) ?? [];
  throw new CliError(
    errors.length
      ? errors.map((e, i) => `${i === 0 ? "lading: " : "  "}${e.code}: ${e.message}`)
      : [`lading: registry answered HTTP ${res.status}`],
  );
}

function changesLimit(parsed: ParsedArgs): number {
  const text = flagText(parsed, "limit");
  if (text === undefined) return defaultChangesLimit;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) {
    throw new UsageError(`--limit: give a whole number from 1 to 1000, got "${text}"`);
  }
  return limit;
}

/**
 * The latest `limit` moves of a history, each with a one-line summary of its diff from the
 * move before (docs/vulnerability-reports.md). The first record has none to compare with: it
 * is the tag's first version, or with --start (or a full page) just the earliest shown.
 */
async function withChanges(
  ctx: CliContext,
  name: string,
  rows: Json[],
  limit: number,
  fromTheStart: boolean,
): Promise<Json[]> {
  const api = createApiClient(ctx);
  const repo = await resolveRepo(api, name);
  const start = Math.max(0, rows.length - limit);
  const moves: Json[] = [];
  for (let i = start; i < rows.length; i++) {
    const row = rows[i];
    const previous = rows[i - 1];
    if (!previous) {
      moves.push({ ...row, changes: fromTheStart ? "first version" : "earliest shown" });
    } else if (previous.digest === row.digest) {
      moves.push({ ...row, changes: "same digest" });
    } else {
      const diff = await api.get("/registry/v2/images:diff", {
        repo,
        from: String(previous.digest),
        to: String(row.digest),
      });
      moves.push({ ...row, changes: summariseDiff(diff), diff });
    }
  }
  return moves;
}

/** `lading images history <org>/<image>:<tag>`. */
export const history: VerbNode = {
  kind: "verb",
  name: "history",
  summary: "Show what a tag pointed to over time (oldest first)",
  args: "<org>/<image>:<tag>",
  minArgs: 1,
  flags: [
    { name: "start", value: "TIME", help: "from this ISO time (inclusive)" },
    { name: "end", value: "TIME", help: "until this ISO time (inclusive)" },
    { name: "pin", type: "boolean", help: "print <registry>/<org>/<image>@<digest> references" },
    {
      name: "changes",
      type: "boolean",
      help: "summarise each move: packages, CVEs fixed and new (one diff per move)",
    },
    {
      name: "limit",
      value: "N",
      help: `with --changes: only the latest N moves (default ${defaultChangesLimit})`,
    },
  ],
  examples: [
    "lading images history acme/app:latest",
    "lading images history acme/app:latest --changes",
    "lading images history acme/app:latest --end 2026-06-01T00:00:00Z --pin | tail -n 1",
  ],
  async run(ctx, parsed) {
    const { name, tag } = parseTagReference(parsed.args[0]);
    if (parsed.flags.changes && parsed.flags.pin) {
      throw new UsageError("--changes and --pin do not go together");
    }
    if (!parsed.flags.changes && flagText(parsed, "limit") !== undefined) {
      throw new UsageError("--limit goes with --changes");
    }
    const limit = changesLimit(parsed);
    const query = new URLSearchParams();
    for (const key of ["start", "end"]) {
      const value = flagText(parsed, key);
      if (value) query.set(key, value);
    }
    const suffix = query.size ? `?${query}` : "";
    const answer = await registryJson(
      ctx,
      `/v2/${name}/_lading/history/${encodeURIComponent(tag)}${suffix}`,
    );
    const rows = (answer.history as Json[] | undefined) ?? [];
    if (parsed.flags.pin && ctx.output !== "json") {
      const host = new URL(ctx.registryUrl).host;
      ctx.stdout.write(rows.map((r) => `${host}/${name}@${r.digest}\n`).join(""));
      return 0;
    }
    const columns: Column[] = [field("time", "updateTimestamp"), field("digest", "digest")];
    if (parsed.flags.changes) {
      // Without --start and under the endpoint's 1000-record cap, the first record is the tag's first.
      const fromTheStart = !query.has("start") && rows.length < 1000;
      const moves = await withChanges(ctx, name, rows, limit, fromTheStart);
      printList(
        ctx,
        moves,
        [...columns, field("changes", "changes")],
        { ...answer, history: moves },
        "digest",
      );
      return 0;
    }
    printList(ctx, rows, columns, answer, "digest");
    return 0;
  },
};
