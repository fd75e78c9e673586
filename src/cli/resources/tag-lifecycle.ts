import { type ApiClient, createApiClient, type Json, uidPath } from "../api-client.ts";
import { UsageError } from "../cli-context.ts";
import { flagText, type ParsedArgs, type VerbNode } from "../command-spec.ts";
import { looksLikeUid, resolveOrganisation, resolveRepo } from "../names.ts";
import { type Column, field, printList, printOne } from "../output.ts";
import type { ResourceDef } from "./crud.ts";
import { parseTagReference } from "./image-history.ts";

/** The uid of what `--on` names: a uid, an organisation name, or a repo `<org>/<image>`. */
async function resolveScope(api: ApiClient, text: string): Promise<string> {
  if (looksLikeUid(text) || text.includes("/")) return resolveRepo(api, text);
  return resolveOrganisation(api, text);
}

const kindFlags = [
  ["immutable", "TAG_POLICY_KIND_IMMUTABLE"],
  ["keep-newest", "TAG_POLICY_KIND_KEEP_NEWEST"],
  ["not-pushed-days", "TAG_POLICY_KIND_NOT_PUSHED"],
  ["not-pulled-days", "TAG_POLICY_KIND_NOT_PULLED"],
] as const;

function policyBody(p: ParsedArgs): Json {
  const given = kindFlags.filter(([flag]) => p.flags[flag] !== undefined);
  if (given.length !== 1) {
    throw new UsageError(
      "give exactly one of --immutable, --keep-newest, --not-pushed-days, --not-pulled-days",
    );
  }
  const [flag, kind] = given[0];
  const body: Json = { pattern: flagText(p, "pattern"), kind };
  if (flag === "immutable") return body;
  const n = Number(flagText(p, flag));
  if (!Number.isInteger(n) || n < 1)
    throw new UsageError(`--${flag}: give a whole number, at least 1`);
  return flag === "keep-newest" ? { ...body, count: n } : { ...body, days: n };
}

const policyColumns: Column[] = [
  field("uid", "uid"),
  field("kind", "kind"),
  field("pattern", "pattern"),
  field("count", "count"),
  field("days", "days"),
  field("created", "createTime"),
];

/** `lading images tag-policies`: immutability rules and retention policies. */
export const tagPolicies: ResourceDef = {
  name: "tag-policies",
  summary: "Tag immutability rules and retention policies of an organisation, group or repo",
  collection: "/registry/v2/tagPolicies",
  listKey: "tagPolicies",
  columns: policyColumns,
  standardFilters: false,
  listFilters: [
    {
      name: "on",
      value: "SCOPE",
      help: "organisation name, group uid, repo uid or <org>/<image>",
      required: true,
    },
  ],
  listQuery: async (p, api) => ({
    "uidp.children_of": await resolveScope(api, flagText(p, "on") ?? ""),
  }),
  create: {
    flags: [
      {
        name: "on",
        value: "SCOPE",
        help: "organisation name, group uid, repo uid or <org>/<image>",
        required: true,
      },
      {
        name: "pattern",
        value: "GLOB",
        help: "tag glob: * any run, ? one character",
        required: true,
      },
      {
        name: "immutable",
        type: "boolean",
        help: "matching tags cannot be moved, deleted or restored",
      },
      { name: "keep-newest", value: "N", help: "keep the newest N matching tags of each repo" },
      { name: "not-pushed-days", value: "D", help: "delete matching tags not pushed for D days" },
      { name: "not-pulled-days", value: "D", help: "delete matching tags not pulled for D days" },
    ],
    examples: [
      "lading images tag-policies create --on acme --pattern 'v*' --immutable",
      "lading images tag-policies create --on acme/app --pattern 'pr-*' --keep-newest 20",
    ],
    async build(p, api) {
      return { parent: await resolveScope(api, flagText(p, "on") ?? ""), body: policyBody(p) };
    },
  },
  extra: [
    {
      kind: "verb",
      name: "preview",
      summary: "List the tags retention would delete now (a dry run; deletes nothing)",
      args: "<scope>",
      minArgs: 1,
      flags: [],
      examples: ["lading images tag-policies preview acme"],
      async run(ctx, parsed) {
        const api = createApiClient(ctx);
        const scope = await resolveScope(api, parsed.args[0]);
        const answer = await api.get(`/registry/v2/tagPolicies/${uidPath(scope)}:preview`);
        const columns = [
          field("repository", "repository"),
          field("tag", "name"),
          field("digest", "digest"),
          field("reason", "reason"),
          field("policy", "policyUid"),
        ];
        printList(ctx, (answer.tags ?? []) as Json[], columns, answer, "uid");
        return 0;
      },
    },
  ],
};

/** `lading images restore <org>/<image>:<tag> --to <digest> | --at <time>`. */
export const restore: VerbNode = {
  kind: "verb",
  name: "restore",
  summary: "Point a tag (also a deleted one) back at a digest from its history",
  args: "<org>/<image>:<tag>",
  minArgs: 1,
  flags: [
    { name: "to", value: "DIGEST", help: "a digest the tag pointed to" },
    { name: "at", value: "TIME", help: "the digest the tag pointed to at this RFC 3339 time" },
  ],
  examples: [
    "lading images restore acme/app:latest --to sha256:…",
    "lading images restore acme/app:latest --at 2026-11-01T00:00:00Z",
  ],
  async run(ctx, parsed) {
    const { name, tag } = parseTagReference(parsed.args[0]);
    const to = flagText(parsed, "to");
    const at = flagText(parsed, "at");
    if ((to === undefined) === (at === undefined)) throw new UsageError("give --to or --at");
    const api = createApiClient(ctx);
    // By organisation and path, so a repo deleted within the window is found too.
    const slash = name.indexOf("/");
    const org = await resolveScope(api, name.slice(0, slash));
    const answer = await api.post(`/registry/v2/tags/${uidPath(org)}:restore`, {
      repository: name.slice(slash + 1),
      name: tag,
      ...(to ? { digest: to } : { time: at }),
    });
    printOne(ctx, answer, [
      field("uid", "uid"),
      field("name", "name"),
      field("digest", "digest"),
      field("updated", "updateTime"),
    ]);
    return 0;
  },
};
