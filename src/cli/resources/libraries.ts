import { ecosystems } from "../../libraries/ecosystems.ts";
import { type ApiClient, createApiClient, type Json, type Query } from "../api-client.ts";
import { type CliContext, UsageError } from "../cli-context.ts";
import {
  type FlagSpec,
  flagList,
  flagText,
  type ParsedArgs,
  type VerbNode,
} from "../command-spec.ts";
import { resolveOrganisation, resolvePackage } from "../names.ts";
import { type Column, field, printList } from "../output.ts";
import { nextPageHint } from "./crud.ts";

const collection = "/libraries/v2/artifacts";

/** `python` → `ECOSYSTEM_PYTHON`; every ecosystem when none is given. */
function ecosystemQuery(parsed: ParsedArgs): string[] {
  const given = flagList(parsed, "ecosystem");
  return (given.length > 0 ? given : [...ecosystems]).map((e) => `ECOSYSTEM_${e.toUpperCase()}`);
}

const ecosystemWord = (value: unknown) =>
  String(value ?? "")
    .replace(/^ECOSYSTEM_/, "")
    .toLowerCase();

const ecosystemFlag: FlagSpec = {
  name: "ecosystem",
  value: "NAME",
  multiple: true,
  choices: ecosystems,
  help: "python, javascript or java (default all three)",
};

/** The largest --limit: five full pages. */
const maxLimit = 1000;

/** Paging flags; `orders` shows what --order-by takes. */
const pageFlags = (orders: string): FlagSpec[] => [
  { name: "limit", value: "N", help: `show at most N results (default 50, at most ${maxLimit})` },
  { name: "page-token", value: "TOKEN", help: "the previous page's next page token" },
  { name: "order-by", value: "FIELD", help: `sort order: ${orders}` },
  { name: "all", type: "boolean", help: "follow next page tokens and print every result" },
];

function limitOf(parsed: ParsedArgs): number {
  const text = flagText(parsed, "limit");
  if (text === undefined) return 50;
  const limit = Number(text);
  if (!Number.isInteger(limit) || limit < 1 || limit > maxLimit) {
    throw new UsageError(`--limit: give a whole number from 1 to ${maxLimit}, got "${text}"`);
  }
  return limit;
}

/**
 * Pages of `path` until `--limit` rows (or, with --all, every row); the answer keeps the last
 * page's next page token so the table can say there is more.
 */
async function collect(
  api: ApiClient,
  path: string,
  key: string,
  query: Query,
  parsed: ParsedArgs,
): Promise<{ rows: Json[]; answer: Json }> {
  const all = parsed.flags.all === true;
  const limit = all ? Number.POSITIVE_INFINITY : limitOf(parsed);
  const rows: Json[] = [];
  let token = flagText(parsed, "page-token") ?? "";
  let answer: Json;
  do {
    const size = Math.min(200, limit - rows.length);
    answer = await api.get(path, { ...query, page_size: String(size), page_token: token });
    rows.push(...((answer[key] as Json[] | undefined) ?? []));
    token = String(answer.nextPageToken ?? "");
  } while (token && rows.length < limit);
  return { rows, answer: { ...answer, [key]: rows } };
}

/** Prints the collected rows of a list, with the next-page hint. */
async function printPages(
  ctx: CliContext,
  parsed: ParsedArgs,
  request: { path: string; key: string; query: Query; columns: Column[] },
): Promise<number> {
  const { path, key, query, columns } = request;
  const { rows, answer } = await collect(createApiClient(ctx), path, key, query, parsed);
  printList(ctx, rows, columns, answer);
  nextPageHint(ctx, answer);
  return 0;
}

const artifactColumns: Column[] = [
  field("name", "displayName"),
  { header: "ecosystem", value: (r) => ecosystemWord(r.ecosystem) },
  field("latest", "latestVersion"),
  field("versions", "versionCount"),
  field("updated", "updateTime"),
  field("id", "uid"),
];

/** The id people know a vulnerability by: its CVE, else its first alias, else the CGA id. */
function shownId(advisory: Json): string {
  const aliases = (advisory.aliases as string[] | undefined) ?? [];
  return aliases.find((a) => a.startsWith("CVE-")) ?? aliases[0] ?? String(advisory.advisoryId);
}

function advisoriesWith(row: Json, status: string): Json[] {
  return ((row.advisories as Json[] | undefined) ?? []).filter((a) => a.status === status);
}

const versionColumns: Column[] = [
  field("version", "version"),
  field("size", "sizeBytes"),
  field("published", "createTime"),
  {
    header: "affected by",
    value: (r) =>
      advisoriesWith(r, "ADVISORY_STATUS_AFFECTED")
        .map((a) => `${shownId(a)} (${a.fixedVersion ? `fixed in ${a.fixedVersion}` : "no fix"})`)
        .join(", "),
  },
  {
    header: "fixes",
    value: (r) => advisoriesWith(r, "ADVISORY_STATUS_FIXED").map(shownId).join(", "),
  },
];

const list: VerbNode = {
  kind: "verb",
  name: "list",
  summary: "List the packages you can see, by name",
  flags: [
    ecosystemFlag,
    { name: "query", value: "TEXT", help: "case-insensitive substring of name or description" },
    { name: "org", value: "ORG", help: "only this organisation's packages (uid or name)" },
    ...pageFlags('name (default), created_at, updated_at or uid, then " desc" or " asc"'),
  ],
  examples: [
    "lading libraries list --ecosystem python",
    "lading libraries list --ecosystem javascript --query react --limit 10",
  ],
  async run(ctx: CliContext, parsed) {
    const org = flagText(parsed, "org");
    const query: Query = {
      ecosystems: ecosystemQuery(parsed),
      query: flagText(parsed, "query"),
      parent: org ? await resolveOrganisation(createApiClient(ctx), org) : undefined,
      order_by: flagText(parsed, "order-by"),
    };
    return printPages(ctx, parsed, {
      path: collection,
      key: "artifacts",
      query,
      columns: artifactColumns,
    });
  },
};

const versions: VerbNode = {
  kind: "verb",
  name: "versions",
  summary: "List a package's versions, newest first, with the advisories affecting each",
  args: "PACKAGE",
  minArgs: 1,
  flags: [
    {
      ...ecosystemFlag,
      help: "where to look the name up when several ecosystems have it (default all three)",
    },
    { name: "org", value: "ORG", help: "the organisation (uid or name) whose package it is" },
    ...pageFlags('version (default "version desc"), created_at or uid, then " desc" or " asc"'),
  ],
  examples: [
    "lading libraries versions jinja2",
    "lading libraries versions jinja2 --ecosystem python --org acme",
    "lading libraries versions python:$ORG:jinja2 -o json | jq '.artifactVersions[].advisories'",
  ],
  async run(ctx, parsed) {
    const api = createApiClient(ctx);
    const org = flagText(parsed, "org");
    const id = await resolvePackage(api, parsed.args[0], {
      ecosystems: ecosystemQuery(parsed),
      org: org ? await resolveOrganisation(api, org) : undefined,
    });
    const path = `${collection}/${encodeURIComponent(id)}/versions`;
    const query: Query = { order_by: flagText(parsed, "order-by") };
    return printPages(ctx, parsed, {
      path,
      key: "artifactVersions",
      query,
      columns: versionColumns,
    });
  },
};

const count: VerbNode = {
  kind: "verb",
  name: "count",
  summary: "Count the packages you can see, per ecosystem",
  flags: [ecosystemFlag],
  examples: ["lading libraries count", "lading libraries count --ecosystem python"],
  async run(ctx, parsed) {
    const answer = await createApiClient(ctx).get(`${collection}/count`, {
      ecosystems: ecosystemQuery(parsed),
    });
    const rows = (answer.counts as Json[] | undefined) ?? [];
    const columns: Column[] = [
      { header: "ecosystem", value: (r) => ecosystemWord(r.ecosystem) },
      { header: "count", value: (r) => String(r.totalCount ?? "0") },
    ];
    printList(ctx, rows, columns, answer, "ecosystem");
    return 0;
  },
};

/** `lading libraries list|versions|count`. */
export const libraryVerbs: VerbNode[] = [list, versions, count];
