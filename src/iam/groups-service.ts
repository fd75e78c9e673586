import { create } from "@bufbuild/protobuf";
import { alreadyExists, failedPrecondition, invalidArgument } from "../errors/index.ts";
import { type Group, GroupSchema, GroupsService } from "../gen/lading/iam/v2/groups_pb.js";
import {
  type BoundService,
  bindService,
  defineResource,
  now,
  updatePaths,
  Violations,
} from "../rpc/index.ts";
import {
  type GroupsTable,
  isUniqueViolation,
  type MetadataSchema,
} from "../store/metadata/index.ts";
import { newChildUid, parentOf } from "../uidp/index.ts";
import { type IamContext, iamDomain, namedSortFields } from "./iam-context.ts";
import { requireParentGroup } from "./visible-rows.ts";

/** The tables whose rows are children of a group, with the words an error uses for them. */
const childKinds = [
  ["groups", "child groups"],
  ["identities", "child identities"],
  ["roles", "child roles"],
  ["role_bindings", "child role bindings"],
] as const satisfies readonly (readonly [keyof MetadataSchema, string])[];

/** Converts a stored row to the API message. */
export function groupFromRow(row: GroupsTable): Group {
  return create(GroupSchema, {
    uid: row.uid,
    name: row.name,
    description: row.description,
    createTime: row.create_time,
    updateTime: row.update_time,
  });
}

/** Groups as the API lists and gets them. */
export const groupResource = defineResource({
  table: "groups",
  domain: iamDomain,
  type: "group",
  see: "groups.list",
  grantsAt: "row",
  sortFields: namedSortFields,
  toMessage: groupFromRow,
});

/** Additional children kinds that block a group's deletion, checked by other domains. */
export type GroupChildCheck = (groupUid: string) => Promise<string | undefined>;

/** The GroupsService implementation. */
export function createGroupsService(
  ctx: IamContext,
  extraChildChecks: GroupChildCheck[] = [],
): BoundService {
  const { db } = ctx;
  return bindService(GroupsService, {
    async listGroups(req, call) {
      const page = await groupResource.list(ctx, call, req, { name: req.name });
      return { ...page, groups: page.items };
    },

    async getGroup(req, call) {
      return groupResource.get(ctx, call, req.uid);
    },

    async createGroup(req, call) {
      const group = req.group ?? create(GroupSchema);
      const v = new Violations()
        .uid("parent", req.parent)
        .name("name", group.name)
        .description("description", group.description);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      await requireParentGroup(ctx, call, req.parent, "groups.create");
      const time = now();
      const row: GroupsTable = {
        uid: newChildUid(req.parent),
        parent_uid: req.parent,
        name: group.name,
        description: group.description,
        create_time: time,
        update_time: time,
      };
      await insertUniqueName(row);
      return groupFromRow(row);
    },

    async updateGroup(req, call) {
      const group = req.group ?? create(GroupSchema);
      const row = await groupResource.load(ctx, call, group.uid, {
        field: "group.uid",
        act: "groups.update",
      });
      const paths = updatePaths(
        iamDomain,
        req.updateMask,
        call,
        { updatable: ["name", "description"], outputOnly: ["uid", "create_time", "update_time"] },
        () =>
          [group.name && "name", group.description && "description"].filter(
            (p): p is string => !!p,
          ),
      );
      const v = new Violations();
      if (paths.has("name")) v.name("name", group.name);
      if (paths.has("description")) v.description("description", group.description);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      if (paths.size === 0) return groupFromRow(row);
      const changes = {
        ...(paths.has("name") ? { name: group.name } : {}),
        ...(paths.has("description") ? { description: group.description } : {}),
        update_time: now(),
      };
      if (changes.name !== undefined && changes.name !== row.name)
        await requireUniqueName(row.parent_uid, changes.name);
      await db.updateTable("groups").set(changes).where("uid", "=", row.uid).execute();
      return groupFromRow({ ...row, ...changes });
    },

    async deleteGroup(req, call) {
      const row = await groupResource.load(ctx, call, req.uid, { act: "groups.delete" });
      for (const [table, words] of childKinds) {
        const child = await db
          .selectFrom(table)
          .select("uid")
          .where("parent_uid", "=", row.uid)
          .limit(1)
          .executeTakeFirst();
        if (child) throw notEmpty(words);
      }
      for (const check of extraChildChecks) {
        const words = await check(row.uid);
        if (words) throw notEmpty(words);
      }
      await db.deleteFrom("groups").where("uid", "=", row.uid).execute();
      return {};
    },
  });

  async function requireUniqueName(parent: string, name: string) {
    const clash = await db
      .selectFrom("groups")
      .select("uid")
      .where("parent_uid", "=", parent)
      .where("name", "=", name)
      .executeTakeFirst();
    if (clash)
      throw alreadyExists(
        iamDomain,
        `a group named "${name}" already exists in ${parent || "the root"}`,
      );
  }

  async function insertUniqueName(row: GroupsTable) {
    await requireUniqueName(row.parent_uid, row.name);
    try {
      await db.insertInto("groups").values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error))
        throw alreadyExists(
          iamDomain,
          `a group named "${row.name}" already exists in ${parentOf(row.uid)}`,
        );
      throw error;
    }
  }
}

function notEmpty(words: string): Error {
  return failedPrecondition(iamDomain, `cannot delete group with ${words}`, [
    {
      type: "RESOURCE_NOT_EMPTY",
      subject: "group",
      description: `cannot delete group with ${words}`,
    },
  ]);
}
