import { create } from "@bufbuild/protobuf";
import { alreadyExists, invalidArgument } from "../errors/index.ts";
import {
  type ExternalGroupRoleMapping,
  ExternalGroupRoleMappingSchema,
  ExternalGroupRoleMappingsService,
} from "../gen/lading/iam/v2/external_group_role_mappings_pb.js";
import { type BoundService, bindService, defineResource, now, Violations } from "../rpc/index.ts";
import { type ExternalGroupRoleMappingsTable, isUniqueViolation } from "../store/metadata/index.ts";
import { isWithin, newChildUid } from "../uidp/index.ts";
import { type IamContext, iamDomain } from "./iam-context.ts";
import { identityProviderResource } from "./identity-providers-service.ts";
import { grantableRole, requireCapability, requireRoleCapabilities } from "./role-grant.ts";

/**
 * External group role mappings as the API lists and gets them. They live under their identity
 * provider and are governed by the identity_providers capabilities of the provider's group.
 */
export const externalGroupRoleMappingResource = defineResource({
  table: "external_group_role_mappings",
  domain: iamDomain,
  type: "external group role mapping",
  see: "identity_providers.list",
  sortFields: {
    uid: { column: "uid" },
    created_at: { column: "create_time" },
  },
  toMessage: externalGroupRoleMappingFromRow,
});

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
      const page = await externalGroupRoleMappingResource.list(ctx, call, req, {
        parent_uid: req.identityProviderUid,
      });
      return { ...page, externalGroupRoleMappings: page.items };
    },

    async getExternalGroupRoleMapping(req, call) {
      return externalGroupRoleMappingResource.get(ctx, call, req.uid);
    },

    async createExternalGroupRoleMapping(req, call) {
      const input = req.externalGroupRoleMapping ?? create(ExternalGroupRoleMappingSchema);
      const provider = await identityProviderResource.load(ctx, call, req.parent, {
        field: "parent",
        act: "identity_providers.create",
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
      const row = await externalGroupRoleMappingResource.load(ctx, call, req.uid, {
        act: "identity_providers.delete",
      });
      await db.transaction().execute(async (tx) => {
        await tx.deleteFrom("role_bindings").where("mapping_uid", "=", row.uid).execute();
        await tx.deleteFrom("external_group_role_mappings").where("uid", "=", row.uid).execute();
      });
      return {};
    },
  });
}
