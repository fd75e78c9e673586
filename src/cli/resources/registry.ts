import { readFile } from "node:fs/promises";
import type { Json } from "../api-client.ts";
import { flagText, type ParsedArgs } from "../command-spec.ts";
import { resolveGroup, resolveRepo, resolveTag } from "../names.ts";
import { type Column, field } from "../output.ts";
import { type Change, type ResourceDef, setIfGiven } from "./crud.ts";

async function readme(p: ParsedArgs): Promise<string | undefined> {
  const file = flagText(p, "readme-file");
  return file === undefined ? undefined : readFile(file, "utf8");
}

/** `lading images repos`. */
export const repos: ResourceDef = {
  name: "repos",
  summary: "Repositories (an image path <org>/<name> under a group)",
  collection: "/registry/v2/repos",
  listKey: "repos",
  resolve: resolveRepo,
  argName: "REPO",
  columns: [
    field("uid", "uid"),
    field("name", "name"),
    field("description", "description"),
    field("created", "createTime"),
    field("updated", "updateTime"),
  ],
  create: {
    flags: [
      {
        name: "parent",
        value: "GROUP",
        help: "the group (uid or name) to create it in",
        required: true,
      },
      {
        name: "name",
        value: "NAME",
        help: "the path below the organisation, e.g. tools/app",
        required: true,
      },
      { name: "description", value: "TEXT", help: "a description" },
      { name: "readme-file", value: "FILE", help: "a Markdown README" },
    ],
    examples: ["lading images repos create --parent $ORG --name app --description 'The app'"],
    async build(p, api) {
      const body: Json = {
        name: flagText(p, "name"),
        description: flagText(p, "description") ?? "",
        readme: (await readme(p)) ?? "",
      };
      return { parent: await resolveGroup(api, flagText(p, "parent") ?? ""), body };
    },
  },
  update: {
    flags: [
      { name: "description", value: "TEXT", help: "a new description" },
      { name: "readme-file", value: "FILE", help: "a new README" },
    ],
    async build(p) {
      const change: Required<Change> = { body: {}, mask: [] };
      setIfGiven(change, "description", flagText(p, "description"));
      return setIfGiven(change, "readme", await readme(p));
    },
  },
};

const tagColumns: Column[] = [
  field("uid", "uid"),
  field("name", "name"),
  field("digest", "digest"),
  { header: "deprecated", value: (r) => (r.deprecated ? "yes" : "no") },
  field("updated", "updateTime"),
];

/** `lading images tags` (--repo takes a repo uid or <org>/<image>; a tag is <org>/<image>:<tag>). */
export const tags: ResourceDef = {
  name: "tags",
  summary: "Tags of a repository",
  collection: "/registry/v2/tags",
  listKey: "tags",
  resolve: resolveTag,
  argName: "TAG",
  columns: tagColumns,
  standardFilters: false,
  listFilters: [
    { name: "repo", value: "REPO", help: "repo uid or <org>/<image>", required: true },
    { name: "name", value: "TAG", help: "only this tag" },
    { name: "digest", value: "DIGEST", help: "only tags pointing at this digest" },
  ],
  listQuery: async (p, api) => ({
    "uidp.children_of": await resolveRepo(api, flagText(p, "repo") ?? ""),
    name: flagText(p, "name"),
    digest: flagText(p, "digest"),
  }),
  create: {
    flags: [
      { name: "repo", value: "REPO", help: "repo uid or <org>/<image>", required: true },
      { name: "name", value: "TAG", help: "the tag", required: true },
      { name: "digest", value: "DIGEST", help: "the manifest it points at", required: true },
    ],
    examples: ["lading images tags create --repo acme/app --name stable --digest sha256:…"],
    async build(p, api) {
      return {
        parent: await resolveRepo(api, flagText(p, "repo") ?? ""),
        body: { name: flagText(p, "name"), digest: flagText(p, "digest") },
      };
    },
  },
  update: {
    flags: [
      { name: "deprecated", type: "boolean", help: "mark the tag deprecated" },
      { name: "no-deprecated", type: "boolean", help: "clear the deprecated mark" },
      {
        name: "expires",
        value: "WHEN",
        help: "when retention deletes it: RFC 3339 time, 12h, 30d, 2w, or never",
      },
    ],
    examples: ["lading images tags update $TAG --expires 30d"],
    async build(p) {
      const change: Required<Change> = { body: {}, mask: [] };
      const deprecated = p.flags.deprecated ? true : p.flags["no-deprecated"] ? false : undefined;
      const expires = flagText(p, "expires");
      setIfGiven(change, "expireTime", expires === "never" ? "" : expires);
      return setIfGiven(change, "deprecated", deprecated);
    },
  },
};
