import type { Kysely } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";
import type { GroupChildCheck } from "./groups-service.ts";

/**
 * Refuses deleting a group that still has identity providers, an account association, or
 * external group role mappings scoped to it: each would outlive the group it names.
 */
export function federationGroupCheck(db: Kysely<MetadataSchema>): GroupChildCheck {
  return async (groupUid) => {
    const [provider, association, mapping] = await Promise.all([
      db
        .selectFrom("identity_providers")
        .select("uid")
        .where("parent_uid", "=", groupUid)
        .limit(1)
        .executeTakeFirst(),
      db
        .selectFrom("account_associations")
        .select("uid")
        .where("uid", "=", groupUid)
        .executeTakeFirst(),
      db
        .selectFrom("external_group_role_mappings")
        .select("uid")
        .where("scope_uid", "=", groupUid)
        .limit(1)
        .executeTakeFirst(),
    ]);
    if (provider) return "child identity providers";
    if (association) return "an account association";
    if (mapping) return "external group role mappings scoped to it";
    return undefined;
  };
}
