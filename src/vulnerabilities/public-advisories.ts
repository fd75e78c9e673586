import type { Kysely } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";

/**
 * The fixed uid of the root group `advisories`, which holds imported public advisories that
 * every signed-in identity may read (docs/decisions.md).
 */
export const publicAdvisoriesGroupUid = "adadadadadadadadadadadadadadadadadadadad";

/**
 * Creates the public advisories group if it does not exist yet. Its name is `advisories`,
 * or `lading-advisories` when an organisation already took that name.
 */
export async function ensurePublicAdvisoriesGroup(db: Kysely<MetadataSchema>): Promise<string> {
  const found = await db
    .selectFrom("groups")
    .select("uid")
    .where("uid", "=", publicAdvisoriesGroupUid)
    .executeTakeFirst();
  if (found) return found.uid;
  const taken = await db
    .selectFrom("groups")
    .select("uid")
    .where("parent_uid", "=", "")
    .where("name", "=", "advisories")
    .executeTakeFirst();
  const time = new Date().toISOString();
  await db
    .insertInto("groups")
    .values({
      uid: publicAdvisoriesGroupUid,
      parent_uid: "",
      name: taken ? "lading-advisories" : "advisories",
      description: "Imported public advisories, readable by every signed-in identity",
      create_time: time,
      update_time: time,
    })
    .onConflict((oc) => oc.column("uid").doNothing())
    .execute();
  return publicAdvisoriesGroupUid;
}
