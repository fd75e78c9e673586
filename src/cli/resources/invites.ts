import { createApiClient, type Json, uidPath } from "../api-client.ts";
import { UsageError } from "../cli-context.ts";
import { flagText, type GroupNode } from "../command-spec.ts";
import { parseDuration } from "../duration.ts";
import { namedColumn, resolveGroup, resolveRole, withNames } from "../names.ts";
import { field, printList, printOne } from "../output.ts";
import { listPages, nextPageHint, pageQuery, type ResourceDef } from "./crud.ts";
import { roleBindingColumns } from "./roles.ts";

const inviteColumns = [
  field("uid", "uid"),
  field("role", "role.name"),
  field("email", "email"),
  { header: "single use", value: (r: Json) => (r.singleUse ? "yes" : "no") },
  field("expires", "expirationTime"),
  field("created", "createTime"),
];

/** `lading iam invites`: create prints the code (the only time it is shown). */
export const invites: ResourceDef = {
  name: "invites",
  summary: "Group invites (a code that grants a role when accepted)",
  collection: "/iam/v2/groupInvites",
  listKey: "groupInvites",
  columns: inviteColumns,
  standardFilters: false,
  listFilters: [
    { name: "parent", value: "GROUP", help: "only invites of this group (uid or name)" },
    { name: "under", value: "GROUP", help: "only invites anywhere below this group" },
    { name: "key-id", value: "ID", help: "only the invite with this key id" },
  ],
  listQuery: (p) => ({ key_id: flagText(p, "key-id") }),
  create: {
    flags: [
      {
        name: "group",
        value: "GROUP",
        help: "the group (uid or name) to invite into",
        required: true,
      },
      {
        name: "role",
        value: "ROLE",
        help: "role uid or name granted on acceptance",
        required: true,
      },
      {
        name: "ttl",
        value: "DURATION",
        help: "how long the code is valid, e.g. 168h",
        required: true,
      },
      { name: "email", value: "EMAIL", help: "only a user with this verified email may accept" },
      { name: "single-use", type: "boolean", help: "the code works once" },
    ],
    examples: ["lading iam invites create --group $ORG --role viewer --ttl 168h --single-use"],
    async build(p, api) {
      const ttl = parseDuration(flagText(p, "ttl") ?? "");
      if (ttl.error) throw new UsageError(`--ttl: ${ttl.error}`);
      return {
        parent: await resolveGroup(api, flagText(p, "group") ?? ""),
        body: {
          roleUid: await resolveRole(api, flagText(p, "role") ?? ""),
          ttl: `${ttl.value}s`,
          email: flagText(p, "email") ?? "",
          singleUse: p.flags["single-use"] === true,
        },
      };
    },
    print(ctx, answer) {
      if (ctx.output === "id") ctx.stdout.write(`${answer.code ?? ""}\n`);
      else printOne(ctx, answer, [...inviteColumns, field("code", "code")]);
    },
  },
  extra: [
    {
      kind: "verb",
      name: "accept",
      summary: "Accept an invite with your signed-in identity",
      args: "CODE",
      minArgs: 1,
      flags: [],
      examples: ["lading iam invites accept 4c1f…"],
      async run(ctx, parsed) {
        const answer = await createApiClient(ctx).post("/iam/v2/groupInvites:accept", {
          code: parsed.args[0],
        });
        const binding = (answer.roleBinding ?? {}) as Json;
        if (ctx.output === "json") printOne(ctx, answer, roleBindingColumns);
        else printOne(ctx, binding, roleBindingColumns);
        return 0;
      },
    },
  ],
};

const termsColumns = [
  field("document", "docId"),
  namedColumn("accepted by", "acceptedBy"),
  namedColumn("group", "groupUid"),
  field("accepted", "createTime"),
];

/** `lading iam terms`: accept documents for a group, list acceptances. */
export const terms: GroupNode = {
  kind: "group",
  name: "terms",
  summary: "Terms acceptances (required before pulling some organisations' content)",
  children: [
    {
      kind: "verb",
      name: "accept",
      summary: "Accept terms documents for a group",
      args: "DOC...",
      minArgs: 1,
      maxArgs: Number.POSITIVE_INFINITY,
      flags: [{ name: "group", value: "GROUP", help: "the group (uid or name)", required: true }],
      examples: ["lading iam terms accept --group $ORG tos-2026"],
      async run(ctx, parsed) {
        const api = createApiClient(ctx);
        const group = await resolveGroup(api, flagText(parsed, "group") ?? "");
        const answer = await api.post(`/iam/v2/terms/${uidPath(group)}`, {
          documentIds: parsed.args,
        });
        const docs = ((answer.documentIds as string[] | undefined) ?? []).map((d) => ({
          docId: d,
        }));
        if (ctx.output === "json") ctx.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
        else printList(ctx, docs, [field("accepted", "docId")], answer, "docId");
        return 0;
      },
    },
    {
      kind: "verb",
      name: "list",
      summary: "List terms accepted for a group (acceptances at ancestors included)",
      flags: [
        { name: "group", value: "GROUP", help: "the group (uid or name)", required: true },
        { name: "page-size", value: "N", help: "results per page" },
        { name: "page-token", value: "TOKEN", help: "the previous page's next page token" },
        { name: "all", type: "boolean", help: "follow next page tokens" },
      ],
      async run(ctx, parsed) {
        const api = createApiClient(ctx);
        const group = await resolveGroup(api, flagText(parsed, "group") ?? "");
        const { page_size, page_token } = pageQuery(parsed);
        const { rows, answer } = await listPages(
          api,
          `/iam/v2/terms/${uidPath(group)}`,
          "termsAcceptances",
          { page_size, page_token },
          parsed.flags.all === true,
        );
        const shown =
          ctx.output === "table"
            ? await withNames(api, rows, [
                { field: "acceptedBy", collection: "/iam/v2/identities" },
                { field: "groupUid", collection: "/iam/v2/groups" },
              ])
            : rows;
        printList(ctx, shown, termsColumns, answer, "docId");
        nextPageHint(ctx, answer);
        return 0;
      },
    },
  ],
};
