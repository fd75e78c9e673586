import { create } from "@bufbuild/protobuf";
import { alreadyExists, invalidArgument } from "../errors/index.ts";
import {
  type ExternalGroupRoleMapping,
  ExternalGroupRoleMappingSchema,
  ExternalGroupRoleMappingsService,
} from "../gen/lading/iam/v2/external_group_role_mappings_pb.js";
import type { ListSpec } from "../lists/index.ts";
import {
  type BoundService,
  bindService,
  type Call,
  now,
  scopesOf,
  Violations,
} from "../rpc/index.ts";
import type { ExternalGroupRoleMappingsTable } from "../store/metadata/index.ts";
import { isWithin, newChildUid } from "../uidp/index.ts";
import { isUniqueViolation } from "./groups-service.ts";
import { type IamContext, iamDomain } from "./iam-context.ts";
import { grantableRole, requireCapability, requireRoleCapabilities } from "./role-grant.ts";
import { loadVisible } from "./visible-rows.ts";

const listSpec: ListSpec<"external_group_role_mappings"> = {
  table: "external_group_role_mappings",
  domain: iamDomain,
  fields: {
    uid: { column: "uid" },
    created_at: { column: "create_time" },
  },
  defaultField: "uid",
};

/** Converts a stored row to the API message. */
export function externalGroupRoleMappingFromRow(
  row: ExternalGroupRoleMappingsTable,
): ExternalGroupRoleMapping {
  return create(ExternalGroupRoleMappingSchema, {
    uid: row.uid,
    identityProviderUid: row.parent_uid,
    externalGroupId: row.external_group_id,
    roleUid: row.role_uid,
    scope: row.scope_uid,
    createTime: row.create_time,
  });
}

/**
 * The ExternalGroupRoleMappingsService implementation. Mappings live under their identity
 * provider and are governed by the identity_providers capabilities of the provider's group.
 */
export function createExternalGroupRoleMappingsService(ctx: IamContext): BoundService {
  const { db } = ctx;

  const visibleMapping = (call: Call, uid: string, field: string, act?: string) =>
    loadVisible(ctx, call, {
      table: "external_group_role_mappings",
      uid,
      field,
      see: "identity_providers.list",
      act,
      resourceType: "external group role mapping",
    });

  /** Checks the scope: the provider's group or a descendant group that exists. */
  async function checkScope(v: Violations, scope: string, group: string): Promise<void> {
    if (!new Violations().uid("scope", scope).empty || !isWithin(scope, group)) {
      v.add("scope", "must be the identity provider's group or a group below it");
      return;
    }
    const found = await db
      .selectFrom("groups")
      .select("uid")
      .where("uid", "=", scope)
      .executeTakeFirst();
    if (!found) v.add("scope", "must name an existing group");
  }

  return bindService(ExternalGroupRoleMappingsService, {
    async listExternalGroupRoleMappings(req, call) {
      const v = new Violations();
      if (req.identityProviderUid !== "") v.uid("identity_provider_uid", req.identityProviderUid);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      const page = await ctx.lists.list(listSpec, {
        parameters: req,
        filters: { parent_uid: req.identityProviderUid },
        visible: { scopes: await scopesOf(call, "identity_providers.list") },
        caller: call.principal?.identityUid ?? "",
      });
      return {
        ...page,
        externalGroupRoleMappings: page.rows.map(externalGroupRoleMappingFromRow),
      };
    },

    async getExternalGroupRoleMapping(req, call) {
      return externalGroupRoleMappingFromRow(await visibleMapping(call, req.uid, "uid"));
    },

    async createExternalGroupRoleMapping(req, call) {
      const input = req.externalGroupRoleMapping ?? create(ExternalGroupRoleMappingSchema);
      const provider = await loadVisible(ctx, call, {
        table: "identity_providers",
        uid: req.parent,
        field: "parent",
        see: "identity_providers.list",
        act: "identity_providers.create",
        resourceType: "identity provider",
      });
      const group = provider.parent_uid;
      await requireCapability(call, "role_bindings.create", group);
      const scope = input.scope || group;
      const v = new Violations();
      if (input.externalGroupId === "" || input.externalGroupId.length > 256)
        v.add("external_group_id", "must be 1 to 256 characters");
      await checkScope(v, scope, group);
      const role = await grantableRole(ctx, v, "role_uid", input.roleUid, scope);
      if (!v.empty || !role) throw invalidArgument(iamDomain, v.list);
      await requireRoleCapabilities(call, role, scope);
      const row: ExternalGroupRoleMappingsTable = {
        uid: newChildUid(provider.uid),
        parent_uid: provider.uid,
        external_group_id: input.externalGroupId,
        role_uid: role.uid,
        scope_uid: scope,
        create_time: now(),
        update_time: now(),
      };
      row.update_time = row.create_time;
      try {
        await db.insertInto("external_group_role_mappings").values(row).execute();
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw alreadyExists(
            iamDomain,
            "this identity provider already maps this external group to this role on this scope",
          );
        }
        throw error;
      }
      return externalGroupRoleMappingFromRow(row);
    },

    async deleteExternalGroupRoleMapping(req, call) {
      const row = await visibleMapping(call, req.uid, "uid", "identity_providers.delete");
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom("role_bindings").where("mapping_uid", "=", row.uid).execute();
        await tx.deleteFrom("external_group_role_mappings").where("uid", "=", row.uid).execute();
      });
      return {};
    },
  });
}
