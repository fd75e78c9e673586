import { type ApiClient, createApiClient, type Json, type Query, uidPath } from "../api-client.ts";
import { type CliContext, UsageError } from "../cli-context.ts";
import {
  type FlagSpec,
  flagText,
  type GroupNode,
  type ParsedArgs,
  type VerbNode,
} from "../command-spec.ts";
import { type NamedField, resolveGroup, withNames } from "../names.ts";
import { type Column, printList, printOne } from "../output.ts";

/** What a create or update sends. */
export interface Change {
  body: Json;
  /** Update only: the updateMask paths (lowerCamel). */
  mask?: string[];
}

/** A REST collection and the verbs the CLI offers on it. */
export interface ResourceDef {
  /** The command word ("identities"). */
  name: string;
  summary: string;
  /** "/iam/v2/identities". */
  collection: string;
  /** The list answer's array key ("identities"). */
  listKey: string;
  columns: Column[];
  /**
   * How the positional of get, update and delete names one (default: a uid only), and what
   * help calls it (default "UID").
   */
  resolve?(api: ApiClient, text: string): Promise<string>;
  argName?: string;
  /** uid fields whose names the table shows (see namedColumn). */
  names?: NamedField[];
  /** Filters besides --parent, --under and --name (false: those three are not offered). */
  listFilters?: FlagSpec[];
  standardFilters?: boolean;
  listQuery?(parsed: ParsedArgs, api: ApiClient): Query | Promise<Query>;
  create?: {
    flags: FlagSpec[];
    examples?: string[];
    build(parsed: ParsedArgs, api: ApiClient): Promise<Change & { parent: string }>;
    /** Prints the answer instead of the default. */
    print?(ctx: CliContext, answer: Json): void;
  };
  update?: {
    flags: FlagSpec[];
    examples?: string[];
    build(parsed: ParsedArgs, api: ApiClient): Promise<Change>;
  };
  /** Delete verb (default plain DELETE; false: no delete). */
  delete?: false | ((api: ApiClient, uid: string) => Promise<Json>);
  /** More verbs. */
  extra?: VerbNode[];
}

const pageFlags: FlagSpec[] = [
  { name: "page-size", value: "N", help: "results per page (server default 50, at most 200)" },
  { name: "page-token", value: "TOKEN", help: "the previous page's next page token" },
  { name: "order-by", value: "FIELD", help: 'sort order, e.g. "name" or "created_at desc"' },
  { name: "skip", value: "N", help: "results to skip before the page" },
  { name: "all", type: "boolean", help: "follow next page tokens and print every result" },
];

const standardFilters: FlagSpec[] = [
  { name: "parent", value: "GROUP", help: "only direct children of this group (uid or name)" },
  { name: "under", value: "GROUP", help: "only resources anywhere below this group (uid or name)" },
  { name: "name", value: "NAME", help: "only this exact name" },
];

/** Every page of a list (or one page unless `all`), with the last answer. */
export async function listPages(
  api: ApiClient,
  path: string,
  key: string,
  query: Query,
  all: boolean,
): Promise<{ rows: Json[]; answer: Json }> {
  let answer = await api.get(path, query);
  const rows = [...((answer[key] as Json[] | undefined) ?? [])];
  while (all && answer.nextPageToken) {
    answer = await api.get(path, { ...query, page_token: String(answer.nextPageToken) });
    rows.push(...((answer[key] as Json[] | undefined) ?? []));
  }
  if (all) answer = { [key]: rows, totalCount: answer.totalCount ?? String(rows.length) };
  return { rows, answer };
}

/** The list verb's query from its standard flags. */
export function pageQuery(parsed: ParsedArgs): Query {
  return {
    page_size: flagText(parsed, "page-size"),
    page_token: flagText(parsed, "page-token"),
    order_by: flagText(parsed, "order-by"),
    skip: flagText(parsed, "skip"),
  };
}

/** Prints the hint for the next page in table output. */
export function nextPageHint(ctx: CliContext, answer: Json): void {
  if (ctx.output === "table" && answer.nextPageToken) {
    ctx.stderr.write(`more results: --page-token ${answer.nextPageToken} (or --all)\n`);
  }
}

function listVerb(def: ResourceDef): VerbNode {
  const standard = def.standardFilters === false ? [] : standardFilters;
  return {
    kind: "verb",
    name: "list",
    summary: `List ${def.name}`,
    flags: [...standard, ...(def.listFilters ?? []), ...pageFlags],
    async run(ctx, parsed) {
      const api = createApiClient(ctx);
      const query: Query = {
        "uidp.children_of": await groupFlag(api, parsed, "parent"),
        "uidp.descendants_of": await groupFlag(api, parsed, "under"),
        name: flagText(parsed, "name"),
        ...pageQuery(parsed),
        ...(await def.listQuery?.(parsed, api)),
      };
      const { rows, answer } = await listPages(
        api,
        def.collection,
        def.listKey,
        query,
        parsed.flags.all === true,
      );
      printList(ctx, await named(ctx, api, def, rows), def.columns, answer);
      nextPageHint(ctx, answer);
      return 0;
    },
  };
}

/** The uid a group flag names (a uid, an organisation or a group path), if given. */
export async function groupFlag(
  api: ApiClient,
  parsed: ParsedArgs,
  name: string,
): Promise<string | undefined> {
  const text = flagText(parsed, name);
  return text === undefined || text === "" ? text : resolveGroup(api, text);
}

/** Rows with the names of their uids for a table; the API's JSON stays as it came. */
async function named(ctx: CliContext, api: ApiClient, def: ResourceDef, rows: Json[]) {
  return ctx.output === "table" && def.names ? withNames(api, rows, def.names) : rows;
}

/** The uid the positional `text` of get, update or delete names. */
function target(def: ResourceDef, api: ApiClient, text: string): Promise<string> {
  return def.resolve ? def.resolve(api, text) : Promise.resolve(text);
}

/** The group node of a resource: list, get, create, update, delete as defined. */
export function resourceCommands(def: ResourceDef): GroupNode {
  const children: VerbNode[] = [listVerb(def)];
  const arg = def.argName ?? "UID";
  const by = def.resolve ? "uid or name" : "uid";
  children.push({
    kind: "verb",
    name: "get",
    summary: `Show one, by ${by}`,
    args: arg,
    minArgs: 1,
    flags: [],
    async run(ctx, parsed) {
      const api = createApiClient(ctx);
      const uid = await target(def, api, parsed.args[0]);
      const row = await api.get(`${def.collection}/${uidPath(uid)}`);
      const [shown] = await named(ctx, api, def, [row]);
      printOne(ctx, ctx.output === "table" ? shown : row, def.columns);
      return 0;
    },
  });
  const create = def.create;
  if (create) {
    children.push({
      kind: "verb",
      name: "create",
      summary: "Create one",
      flags: create.flags,
      examples: create.examples,
      async run(ctx, parsed) {
        const api = createApiClient(ctx);
        const { parent, body } = await create.build(parsed, api);
        const row = await api.post(`${def.collection}/${uidPath(parent)}`, body);
        if (create.print) create.print(ctx, row);
        else printOne(ctx, row, def.columns);
        return 0;
      },
    });
  }
  const update = def.update;
  if (update) {
    children.push({
      kind: "verb",
      name: "update",
      summary: "Change one: only the fields whose flags are given",
      args: arg,
      minArgs: 1,
      flags: update.flags,
      examples: update.examples,
      async run(ctx, parsed) {
        const api = createApiClient(ctx);
        const { body, mask = [] } = await update.build(parsed, api);
        if (mask.length === 0) throw new UsageError("nothing to update: give at least one flag");
        const uid = await target(def, api, parsed.args[0]);
        const row = await api.patch(`${def.collection}/${uidPath(uid)}`, body, mask);
        printOne(ctx, row, def.columns);
        return 0;
      },
    });
  }
  const remove = def.delete;
  if (remove !== false) {
    children.push({
      kind: "verb",
      name: "delete",
      summary: `Delete one or more, by ${by}`,
      args: `${arg}...`,
      minArgs: 1,
      maxArgs: Number.POSITIVE_INFINITY,
      flags: [],
      async run(ctx, parsed) {
        const api = createApiClient(ctx);
        for (const text of parsed.args) {
          const uid = await target(def, api, text);
          const answer = remove
            ? await remove(api, uid)
            : await api.delete(`${def.collection}/${uidPath(uid)}`);
          if (ctx.output === "json") ctx.stdout.write(`${JSON.stringify(answer)}\n`);
          else if (ctx.output === "id") ctx.stdout.write(`${uid}\n`);
          else ctx.stdout.write(`deleted ${text === uid ? uid : `${text} (${uid})`}\n`);
        }
        return 0;
      },
    });
  }
  children.push(...(def.extra ?? []));
  return { kind: "group", name: def.name, summary: def.summary, children };
}

/** Adds `value` at `path` of `body` and the path to `mask` when the flag was given. */
export function setIfGiven(
  change: Required<Change>,
  path: string,
  value: unknown,
): Required<Change> {
  if (value === undefined) return change;
  let target = change.body;
  const keys = path.split(".");
  for (const key of keys.slice(0, -1)) {
    target[key] ??= {};
    target = target[key] as Json;
  }
  target[keys[keys.length - 1]] = value;
  change.mask.push(path);
  return change;
}
