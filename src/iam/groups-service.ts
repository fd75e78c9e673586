import { create } from "@bufbuild/protobuf";
import { alreadyExists, failedPrecondition, invalidArgument } from "../errors/index.ts";
import { type Group, GroupSchema, GroupsService } from "../gen/lading/iam/v2/groups_pb.js";
import type { ListSpec } from "../lists/index.ts";
import {
  type BoundService,
  bindService,
  type Call,
  now,
  scopesOf,
  updatePaths,
  Violations,
} from "../rpc/index.ts";
import type { GroupsTable, MetadataSchema } from "../store/metadata/index.ts";
import { newChildUid, parentOf } from "../uidp/index.ts";
import { type IamContext, iamDomain, namedSortFields } from "./iam-context.ts";
import { loadVisible, requireParentGroup } from "./visible-rows.ts";

const listSpec: ListSpec<"groups"> = {
  table: "groups",
  domain: iamDomain,
  fields: namedSortFields,
  defaultField: "uid",
};

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

/** Additional children kinds that block a group's deletion, checked by other domains. */
export type GroupChildCheck = (groupUid: string) => Promise<string | undefined>;

/** The GroupsService implementation. */
export function createGroupsService(
  ctx: IamContext,
  extraChildChecks: GroupChildCheck[] = [],
): BoundService {
  const { db } = ctx;
  const visibleGroup = (call: Call, uid: string, field: string, act?: string) =>
    loadVisible(ctx, call, {
      table: "groups",
      uid,
      field,
      see: "groups.list",
      act,
      resourceType: "group",
    });

  return bindService(GroupsService, {
    async listGroups(req, call) {
      const page = await ctx.lists.list(listSpec, {
        parameters: req,
        filters: { name: req.name },
        visible: { scopes: await scopesOf(call, "groups.list") },
        caller: call.principal?.identityUid ?? "",
      });
      return { ...page, groups: page.rows.map(groupFromRow) };
    },

    async getGroup(req, call) {
      return groupFromRow(await visibleGroup(call, req.uid, "uid"));
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
      const row = await visibleGroup(call, group.uid, "group.uid", "groups.update");
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
      const row = await visibleGroup(call, req.uid, "uid", "groups.delete");
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

/** True for a unique-constraint failure on either dialect. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: string };
  return (
    e?.code === "23505" ||
    e?.code === "SQLITE_CONSTRAINT_UNIQUE" ||
    e?.code === "SQLITE_CONSTRAINT_PRIMARYKEY"
  );
}
