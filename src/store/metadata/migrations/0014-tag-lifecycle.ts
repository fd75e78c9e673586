import type { Kysely } from "kysely";
import { addRowCounters } from "./0002-list-counts.ts";
import { columnTypes } from "./column-types.ts";

/**
 * Tag lifecycle: immutability and retention policies on an organisation, group or repo; a
 * tag's last pull and expiry time; history records that say what happened (a move, a restore,
 * a deletion) and which tag uid they belonged to, so a deleted tag can be restored by its uid.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("tag_policies")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("root_uid", t.key, (c) => c.notNull())
    .addColumn("kind", "text", (c) => c.notNull())
    .addColumn("pattern", "text", (c) => c.notNull())
    .addColumn("count", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("days", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("tag_policies_root")
    .on("tag_policies")
    .columns(["root_uid", "kind"])
    .execute();
  for (const [suffix, columns] of [
    ["parent", ["parent_uid", "uid"]],
    ["create", ["create_time", "uid"]],
    ["update", ["update_time", "uid"]],
  ] as const) {
    await db.schema
      .createIndex(`tag_policies_${suffix}`)
      .on("tag_policies")
      .columns([...columns])
      .execute();
  }
  await addRowCounters(db, "tag_policies");

  await db.schema.alterTable("tags").addColumn("pull_time", t.key).execute();
  await db.schema.alterTable("tags").addColumn("expire_time", t.key).execute();
  await db.schema.createIndex("tags_expire").on("tags").columns(["expire_time"]).execute();

  await db.schema
    .alterTable("tag_history")
    .addColumn("action", "text", (c) => c.notNull().defaultTo("move"))
    .execute();
  await db.schema.alterTable("tag_history").addColumn("tag_uid", t.key).execute();
  await db.schema.createIndex("tag_history_uid").on("tag_history").columns(["tag_uid"]).execute();

  // A deleted repo's manifests, blob links and history stay until the window passes.
  await db.schema
    .createTable("deleted_repos")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("root_uid", t.key, (c) => c.notNull())
    .addColumn("name", t.key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("readme", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addColumn("delete_time", t.key, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("deleted_repos_path")
    .on("deleted_repos")
    .columns(["root_uid", "name", "delete_time"])
    .execute();
  await db.schema
    .createIndex("deleted_repos_time")
    .on("deleted_repos")
    .columns(["delete_time"])
    .execute();
}
