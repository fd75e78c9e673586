import { create } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import { alreadyExists, invalidArgument } from "../errors/index.ts";
import {
  type RoleBinding,
  RoleBindingSchema,
  RoleBindingsService,
} from "../gen/lading/iam/v2/role_bindings_pb.js";
import {
  type BoundService,
  bindService,
  type Call,
  defineResource,
  now,
  updatePaths,
  Violations,
} from "../rpc/index.ts";
import {
  isUniqueViolation,
  type MetadataSchema,
  type RoleBindingsTable,
} from "../store/metadata/index.ts";
import { newChildUid, rootOf } from "../uidp/index.ts";
import { type IamContext, iamDomain } from "./iam-context.ts";
import { grantableRole, requireRoleCapabilities } from "./role-grant.ts";
import { requireParentGroup } from "./visible-rows.ts";

/** Role bindings as the API lists and gets them, each with its identity, group and role. */
export const roleBindingResource = defineResource({
  table: "role_bindings",
  domain: iamDomain,
  type: "role binding",
  see: "role_bindings.list",
  sortFields: {
    uid: { column: "uid" },
    created_at: { column: "create_time" },
    updated_at: { column: "update_time" },
  },
  hydrate: hydrateRoleBindings,
});

const fields = {
  updatable: ["identity_uid", "role_uid"],
  outputOnly: ["uid", "identity", "group", "role", "create_time", "update_time"],
};

/** Loads bindings with their identity, group and role in one query (every response hydrates). */
export async function hydrateRoleBindings(
  db: Kysely<MetadataSchema>,
  rows: RoleBindingsTable[],
): Promise<RoleBinding[]> {
  if (rows.length === 0) return [];
  const identityUids = [...new Set(rows.map((r) => r.identity_uid))];
  const roleUids = [...new Set(rows.map((r) => r.role_uid))];
  const groupUids = [...new Set(rows.map((r) => r.parent_uid))];
  const [identities, roles, groups] = await Promise.all([
    db
      .selectFrom("identities")
      .select(["uid", "name", "description", "issuer", "subject"])
      .where("uid", "in", identityUids)
      .execute(),
    db
      .selectFrom("roles")
      .select(["uid", "name", "description"])
      .where("uid", "in", roleUids)
      .execute(),
    db
      .selectFrom("groups")
      .select(["uid", "name", "description"])
      .where("uid", "in", groupUids)
      .execute(),
  ]);
  const byUid = <T extends { uid: string }>(list: T[]) => new Map(list.map((x) => [x.uid, x]));
  const [i, r, g] = [byUid(identities), byUid(roles), byUid(groups)];
  return rows.map((row) => {
    const identity = i.get(row.identity_uid);
    return create(RoleBindingSchema, {
      uid: row.uid,
      identity: identity && {
        uid: identity.uid,
        name: identity.name,
        description: identity.description,
        subject: identity.subject,
        issuer: identity.issuer,
      },
      group: g.get(row.parent_uid),
      role: r.get(row.role_uid),
      createTime: row.create_time,
      updateTime: row.update_time,
      identityUid: row.identity_uid,
      roleUid: row.role_uid,
    });
  });
}

/** The RoleBindingsService implementation. Every response hydrates identity, group and role. */
export function createRoleBindingsService(ctx: IamContext): BoundService {
  const { db } = ctx;

  const hydrate = (rows: RoleBindingsTable[]) => hydrateRoleBindings(db, rows);

  /**
   * Checks that `identityUid` and `roleUid` may be bound on `group`: the identity exists in the
   * same organisation, the role is built-in or defined on the group or an ancestor, and the
   * caller itself holds every capability of the role there (no one grants more than they have).
   */
  async function checkBindable(call: Call, group: string, identityUid: string, roleUid: string) {
    const v = new Violations().uid("identityUid", identityUid);
    const [identity, role] = await Promise.all([
      v.empty
        ? db
            .selectFrom("identities")
            .select(["uid", "parent_uid"])
            .where("uid", "=", identityUid)
            .executeTakeFirst()
        : undefined,
      grantableRole(ctx, v, "roleUid", roleUid, group),
    ]);
    if (identity && identity.parent_uid !== "" && rootOf(identity.uid) !== rootOf(group)) {
      v.add("identityUid", "must name a signed-in user or an identity of the same organisation");
    } else if (!identity && v.empty) {
      v.add("identityUid", "must name a signed-in user or an identity of the same organisation");
    }
    if (!v.empty || !role) throw invalidArgument(iamDomain, v.list);
    await requireRoleCapabilities(call, role, group);
  }

  async function write(action: () => Promise<unknown>) {
    try {
      await action();
    } catch (error) {
      if (isUniqueViolation(error))
        throw alreadyExists(iamDomain, "this identity already has this role on this group");
      throw error;
    }
  }

  return bindService(RoleBindingsService, {
    async listRoleBindings(req, call) {
      const v = new Violations();
      for (const [field, value] of [
        ["identity", req.identity],
        ["role", req.role],
        ["group", req.group],
      ]) {
        if (value !== "") v.uid(field, value);
      }
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      const page = await roleBindingResource.list(ctx, call, req, {
        identity_uid: req.identity,
        role_uid: req.role,
        parent_uid: req.group,
      });
      return { ...page, roleBindings: page.items };
    },

    async getRoleBinding(req, call) {
      return roleBindingResource.get(ctx, call, req.uid);
    },

    async createRoleBinding(req, call) {
      const input = req.roleBinding ?? create(RoleBindingSchema);
      const v = new Violations().uid("parent", req.parent);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      await requireParentGroup(ctx, call, req.parent, "role_bindings.create");
      await checkBindable(call, req.parent, input.identityUid, input.roleUid);
      const time = now();
      const row: RoleBindingsTable = {
        uid: newChildUid(req.parent),
        parent_uid: req.parent,
        identity_uid: input.identityUid,
        role_uid: input.roleUid,
        mapping_uid: "",
        create_time: time,
        update_time: time,
      };
      await write(() => db.insertInto("role_bindings").values(row).execute());
      return (await hydrate([row]))[0];
    },

    async updateRoleBinding(req, call) {
      const input = req.roleBinding ?? create(RoleBindingSchema);
      const row = await roleBindingResource.load(ctx, call, input.uid, {
        field: "role_binding.uid",
        act: "role_bindings.update",
      });
      const paths = updatePaths(iamDomain, req.updateMask, call, fields, () =>
        [input.identityUid && "identity_uid", input.roleUid && "role_uid"].filter(
          (p): p is string => !!p,
        ),
      );
      if (paths.size === 0) return (await hydrate([row]))[0];
      const next = {
        ...row,
        identity_uid: paths.has("identity_uid") ? input.identityUid : row.identity_uid,
        role_uid: paths.has("role_uid") ? input.roleUid : row.role_uid,
        update_time: now(),
      };
      await checkBindable(call, row.parent_uid, next.identity_uid, next.role_uid);
      const { uid, ...changes } = next;
      await write(() =>
        db.updateTable("role_bindings").set(changes).where("uid", "=", uid).execute(),
      );
      return (await hydrate([next]))[0];
    },

    /** Idempotent (AIP-135): deleting a binding that is already gone succeeds. */
    async deleteRoleBinding(req, call) {
      await roleBindingResource.find(ctx, call, req.uid, { act: "role_bindings.delete" });
      await db.deleteFrom("role_bindings").where("uid", "=", req.uid).execute();
      return {};
    },
  });
}
