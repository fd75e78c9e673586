import { create } from "@bufbuild/protobuf";
import { invalidArgument } from "../errors/index.ts";
import {
  TagPoliciesService,
  type TagPolicy,
  TagPolicyKind,
  TagPolicySchema,
} from "../gen/lading/registry/v2/tag_policies_pb.js";
import {
  type BoundService,
  bindService,
  type Call,
  defineResource,
  now,
  requireParentGroup,
  Violations,
} from "../rpc/index.ts";
import type { TagPoliciesTable } from "../store/metadata/index.ts";
import { newChildUid, rootOf } from "../uidp/index.ts";
import { type RegistryContext, registryDomain } from "./registry-context.ts";
import { repoResource } from "./repos-service.ts";
import { previewRetention } from "./retention.ts";
import { parseTagPattern } from "./tag-patterns.ts";
import type { TagPolicyKindName } from "./tag-policies.ts";

/** Most policies under one parent: each is matched against every tag change below it. */
export const maxPoliciesPerParent = 100;

const kindNames = new Map<TagPolicyKind, TagPolicyKindName>([
  [TagPolicyKind.IMMUTABLE, "immutable"],
  [TagPolicyKind.KEEP_NEWEST, "keep_newest"],
  [TagPolicyKind.NOT_PUSHED, "not_pushed"],
  [TagPolicyKind.NOT_PULLED, "not_pulled"],
]);
const kindsByName = new Map([...kindNames].map(([k, v]) => [v, k]));

/** Tag policies as the API lists and gets them. */
export const tagPolicyResource = defineResource({
  table: "tag_policies",
  domain: registryDomain,
  type: "tag_policy",
  see: "tag.list",
  sortFields: {
    uid: { column: "uid" },
    created_at: { column: "create_time" },
  },
  toMessage: tagPolicyFromRow,
});

/** Converts a stored row to the API message. */
export function tagPolicyFromRow(row: TagPoliciesTable): TagPolicy {
  return create(TagPolicySchema, {
    uid: row.uid,
    pattern: row.pattern,
    kind: kindsByName.get(row.kind as TagPolicyKindName) ?? TagPolicyKind.UNSPECIFIED,
    count: Number(row.count),
    days: Number(row.days),
    createTime: row.create_time,
  });
}

/** The TagPoliciesService implementation. */
export function createTagPoliciesService(ctx: RegistryContext): BoundService {
  const { db } = ctx;
  return bindService(TagPoliciesService, {
    async listTagPolicies(req, call) {
      const page = await tagPolicyResource.list(ctx, call, req);
      return { ...page, tagPolicies: page.items };
    },

    async getTagPolicy(req, call) {
      return tagPolicyResource.get(ctx, call, req.uid);
    },

    async createTagPolicy(req, call) {
      const policy = req.tagPolicy ?? create(TagPolicySchema);
      const kind = kindNames.get(policy.kind);
      const v = new Violations().uid("parent", req.parent);
      const pattern = parseTagPattern(policy.pattern);
      if (pattern.error) v.add("tag_policy.pattern", pattern.error);
      if (!kind)
        v.add("tag_policy.kind", "must be IMMUTABLE, KEEP_NEWEST, NOT_PUSHED or NOT_PULLED");
      if (kind === "keep_newest" && !(policy.count >= 1 && policy.count <= 10_000))
        v.add("tag_policy.count", "must be 1 to 10000 for KEEP_NEWEST");
      if (kind !== "keep_newest" && policy.count !== 0)
        v.add("tag_policy.count", "is only for KEEP_NEWEST");
      const byDays = kind === "not_pushed" || kind === "not_pulled";
      if (byDays && !(policy.days >= 1 && policy.days <= 36_500))
        v.add("tag_policy.days", "must be 1 to 36500 for NOT_PUSHED and NOT_PULLED");
      if (!byDays && policy.days !== 0)
        v.add("tag_policy.days", "is only for NOT_PUSHED and NOT_PULLED");
      if (!v.empty || !kind) throw invalidArgument(registryDomain, v.list);
      await requirePolicyParent(ctx, call, req.parent);
      const existing = await db
        .selectFrom("tag_policies")
        .select((eb) => eb.fn.countAll<number>().as("n"))
        .where("parent_uid", "=", req.parent)
        .executeTakeFirstOrThrow();
      if (Number(existing.n) >= maxPoliciesPerParent) {
        throw invalidArgument(registryDomain, [
          { field: "parent", description: `holds ${maxPoliciesPerParent} policies already` },
        ]);
      }
      const time = now();
      const row: TagPoliciesTable = {
        uid: newChildUid(req.parent),
        parent_uid: req.parent,
        root_uid: rootOf(req.parent),
        kind,
        pattern: policy.pattern,
        count: policy.count,
        days: policy.days,
        create_time: time,
        update_time: time,
      };
      await db.insertInto("tag_policies").values(row).execute();
      return tagPolicyFromRow(row);
    },

    async deleteTagPolicy(req, call) {
      const row = await tagPolicyResource.load(ctx, call, req.uid, { act: "groups.update" });
      await db.deleteFrom("tag_policies").where("uid", "=", row.uid).execute();
      return {};
    },

    async previewRetention(req, call) {
      const v = new Violations().uid("parent", req.parent);
      if (!v.empty) throw invalidArgument(registryDomain, v.list);
      await requirePolicyParent(ctx, call, req.parent, "tag.list");
      return { tags: await previewRetention(db, req.parent) };
    },
  });
}

/**
 * A policy's parent is a repo or a group; changing policies needs groups.update there (an
 * administrator's, which pushers do not hold), reading them tag.list.
 */
async function requirePolicyParent(
  ctx: RegistryContext,
  call: Call,
  parent: string,
  act = "groups.update",
): Promise<void> {
  const repo = await ctx.db
    .selectFrom("repos")
    .select("uid")
    .where("uid", "=", parent)
    .executeTakeFirst();
  if (repo) {
    await repoResource.load(ctx, call, parent, { field: "parent", act });
    return;
  }
  await requireParentGroup(ctx.db, call, parent, act, registryDomain);
}
