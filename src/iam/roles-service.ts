import { create } from "@bufbuild/protobuf";
import { capabilityFromEnum, capabilityToEnum } from "../auth/index.ts";
import { failedPrecondition, invalidArgument, notFound } from "../errors/index.ts";
import type { Capability } from "../gen/lading/iam/v2/capabilities_pb.js";
import { type Role, RoleSchema, RolesService } from "../gen/lading/iam/v2/roles_pb.js";
import {
  type BoundService,
  bindService,
  type Call,
  defineResource,
  now,
  requireAccess,
  updatePaths,
  Violations,
} from "../rpc/index.ts";
import type { RolesTable } from "../store/metadata/index.ts";
import { newChildUid, parentOf } from "../uidp/index.ts";
import { type IamContext, iamDomain, namedSortFields } from "./iam-context.ts";
import { requireCanGrant, roleCapabilities } from "./role-grant.ts";
import { requireParentGroup } from "./visible-rows.ts";

const fields = {
  updatable: ["name", "description", "capabilities"],
  outputOnly: ["uid", "create_time", "update_time"],
};

/** Converts a stored row to the API message. */
export function roleFromRow(row: RolesTable): Role {
  const names = JSON.parse(row.capabilities) as string[];
  return create(RoleSchema, {
    uid: row.uid,
    name: row.name,
    description: row.description,
    capabilities: names.map(capabilityToEnum).filter((c): c is number => c !== undefined),
    createTime: row.create_time,
    updateTime: row.update_time,
  });
}

/**
 * Roles as the API lists them; the built-in ones (parent "") are listed to every caller. Get,
 * Update and Delete read a role through `visibleRole` instead: a built-in role is seen by every
 * caller and changed by none, which `load` and `get` do not know.
 */
export const roleResource = defineResource({
  table: "roles",
  domain: iamDomain,
  type: "role",
  see: "roles.list",
  sortFields: namedSortFields,
  listedUnder: [""],
  toMessage: roleFromRow,
});

/** Validates capabilities and returns their dotted names. */
function capabilityNames(v: Violations, values: Capability[]): string[] {
  if (values.length === 0) v.add("capabilities", "must name at least one capability");
  const names = values.map(capabilityFromEnum);
  if (names.some((n) => n === undefined))
    v.add("capabilities", "must be known capabilities other than CAP_UNSPECIFIED");
  return [...new Set(names.filter((n): n is string => n !== undefined))];
}

/** The RolesService implementation. Built-in roles (parent "") are visible to every caller. */
export function createRolesService(ctx: IamContext): BoundService {
  const { db } = ctx;

  /** Loads a role the caller may see; built-in roles are visible to all and never changeable. */
  async function visibleRole(call: Call, uid: string, field: string, act?: string) {
    const v = new Violations().uid(field, uid);
    if (!v.empty) throw invalidArgument(iamDomain, v.list);
    const builtIn = !uid.includes("/");
    if (!builtIn) {
      await requireAccess(call, {
        see: "roles.list",
        act,
        at: parentOf(uid),
        domain: iamDomain,
        resourceType: "role",
        resourceName: uid,
      });
    }
    const row = await db.selectFrom("roles").selectAll().where("uid", "=", uid).executeTakeFirst();
    if (!row) throw notFound(iamDomain, "role", uid);
    if (act) refuseBuiltIn(row);
    return row;
  }

  function refuseBuiltIn(row: RolesTable) {
    if (row.parent_uid !== "") return;
    const description = `built-in role ${row.name} cannot be changed or deleted`;
    throw failedPrecondition(iamDomain, description, [
      { type: "BUILT_IN_ROLE", subject: row.uid, description },
    ]);
  }

  return bindService(RolesService, {
    async listRoles(req, call) {
      const page = await roleResource.list(ctx, call, req, { name: req.name });
      return { ...page, roles: page.items };
    },

    async getRole(req, call) {
      return roleFromRow(await visibleRole(call, req.uid, "uid"));
    },

    async createRole(req, call) {
      const role = req.role ?? create(RoleSchema);
      const v = new Violations()
        .uid("parent", req.parent)
        .name("name", role.name)
        .description("description", role.description);
      const capabilities = capabilityNames(v, role.capabilities);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      await requireParentGroup(ctx, call, req.parent, "roles.create");
      await requireCanGrant(call, capabilities, req.parent);
      const time = now();
      const row: RolesTable = {
        uid: newChildUid(req.parent),
        parent_uid: req.parent,
        name: role.name,
        description: role.description,
        capabilities: JSON.stringify(capabilities),
        create_time: time,
        update_time: time,
      };
      await db.insertInto("roles").values(row).execute();
      return roleFromRow(row);
    },

    async updateRole(req, call) {
      const role = req.role ?? create(RoleSchema);
      const row = await visibleRole(call, role.uid, "role.uid", "roles.update");
      const paths = updatePaths(iamDomain, req.updateMask, call, fields, () =>
        [
          role.name && "name",
          role.description && "description",
          role.capabilities.length > 0 && "capabilities",
        ].filter((p): p is string => !!p),
      );
      const v = new Violations();
      const next = { ...row };
      let added: string[] = [];
      if (paths.has("name")) {
        v.name("name", role.name);
        next.name = role.name;
      }
      if (paths.has("description")) {
        v.description("description", role.description);
        next.description = role.description;
      }
      if (paths.has("capabilities")) {
        const wanted = capabilityNames(v, role.capabilities);
        const held = new Set(roleCapabilities(row));
        added = wanted.filter((c) => !held.has(c));
        next.capabilities = JSON.stringify(wanted);
      }
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      // Only what is added is checked: removing capabilities or renaming grants nobody more, and
      // the role may already be bound on its group or any descendant.
      await requireCanGrant(call, added, row.parent_uid);
      if (paths.size === 0) return roleFromRow(row);
      next.update_time = now();
      const { uid, ...changes } = next;
      await db.updateTable("roles").set(changes).where("uid", "=", uid).execute();
      return roleFromRow(next);
    },

    async deleteRole(req, call) {
      const row = await visibleRole(call, req.uid, "uid", "roles.delete");
      const bound = await db
        .selectFrom("role_bindings")
        .select("uid")
        .where("role_uid", "=", row.uid)
        .limit(1)
        .executeTakeFirst();
      if (bound) {
        const description = "cannot delete a role that is bound; delete its role bindings first";
        throw failedPrecondition(iamDomain, description, [
          { type: "RESOURCE_IN_USE", subject: row.uid, description },
        ]);
      }
      await db.deleteFrom("roles").where("uid", "=", row.uid).execute();
      return {};
    },
  });
}
