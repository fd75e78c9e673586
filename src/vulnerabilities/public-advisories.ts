import type { Kysely } from "kysely";
import {
  type GroupsTable,
  type MetadataSchema,
  runInTransaction,
} from "../store/metadata/index.ts";

/**
 * The fixed uid of the root group `advisories`, which holds imported public advisories that
 * every signed-in identity may read (docs/decisions.md).
 */
export const publicAdvisoriesGroupUid = "adadadadadadadadadadadadadadadadadadadad";

/**
 * Creates the public advisories group if it does not exist yet. Its name is `advisories`,
 * or `lading-advisories` when an organisation already took that name. `onCreated` runs in the
 * transaction that creates it (to record its event), and only then.
 */
export async function ensurePublicAdvisoriesGroup(
  db: Kysely<MetadataSchema>,
  onCreated?: (db: Kysely<MetadataSchema>, group: GroupsTable) => Promise<void>,
): Promise<string> {
  const found = await db
    .selectFrom("groups")
    .select("uid")
    .where("uid", "=", publicAdvisoriesGroupUid)
    .executeTakeFirst();
  if (found) return found.uid;
  return runInTransaction(db, async (db) => {
    const taken = await db
      .selectFrom("groups")
      .select("uid")
      .where("parent_uid", "=", "")
      .where("name", "=", "advisories")
      .executeTakeFirst();
    const time = new Date().toISOString();
    const row: GroupsTable = {
      uid: publicAdvisoriesGroupUid,
      parent_uid: "",
      name: taken ? "lading-advisories" : "advisories",
      description: "Imported public advisories, readable by every signed-in identity",
      create_time: time,
      update_time: time,
    };
    const inserted = await db
      .insertInto("groups")
      .values(row)
      .onConflict((oc) => oc.column("uid").doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) await onCreated?.(db, row);
    return publicAdvisoriesGroupUid;
  });
}
