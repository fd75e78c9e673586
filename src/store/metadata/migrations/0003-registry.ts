import type { Kysely } from "kysely";
import { addRowCounters } from "./0002-list-counts.ts";
import { columnTypes } from "./column-types.ts";

/**
 * The registry: repositories under groups, their blobs and manifests, tags with their history,
 * and upload sessions.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("repos")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("root_uid", t.key, (c) => c.notNull())
    .addColumn("name", t.key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("readme", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addUniqueConstraint("repos_path", ["root_uid", "name"])
    .execute();
  for (const [suffix, columns] of [
    ["parent", ["parent_uid", "uid"]],
    ["name", ["name", "uid"]],
    ["create", ["create_time", "uid"]],
    ["update", ["update_time", "uid"]],
  ] as const) {
    await db.schema
      .createIndex(`repos_${suffix}`)
      .on("repos")
      .columns([...columns])
      .execute();
  }

  await db.schema
    .createTable("blobs")
    .addColumn("digest", t.key, (c) => c.primaryKey())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("repo_blobs")
    .addColumn("repo_uid", t.key, (c) => c.notNull())
    .addColumn("digest", t.key, (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("repo_blobs_pk", ["repo_uid", "digest"])
    .execute();

  await db.schema
    .createTable("manifests")
    .addColumn("repo_uid", t.key, (c) => c.notNull())
    .addColumn("digest", t.key, (c) => c.notNull())
    .addColumn("media_type", "text", (c) => c.notNull())
    .addColumn("artifact_type", "text", (c) => c.notNull())
    .addColumn("subject_digest", t.key)
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("manifests_pk", ["repo_uid", "digest"])
    .execute();
  await db.schema
    .createIndex("manifests_subject")
    .on("manifests")
    .columns(["repo_uid", "subject_digest"])
    .execute();

  await db.schema
    .createTable("tags")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("name", t.key, (c) => c.notNull())
    .addColumn("digest", t.key, (c) => c.notNull())
    .addColumn("deprecated", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("history_seq", "bigint", (c) => c.notNull().defaultTo(0))
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addUniqueConstraint("tags_repo_name", ["parent_uid", "name"])
    .execute();
  for (const [suffix, columns] of [
    ["name", ["name", "uid"]],
    ["create", ["create_time", "uid"]],
    ["update", ["update_time", "uid"]],
  ] as const) {
    await db.schema
      .createIndex(`tags_${suffix}`)
      .on("tags")
      .columns([...columns])
      .execute();
  }

  await db.schema
    .createTable("tag_history")
    .addColumn("repo_uid", t.key, (c) => c.notNull())
    .addColumn("tag", t.key, (c) => c.notNull())
    .addColumn("seq", "bigint", (c) => c.notNull())
    .addColumn("digest", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("tag_history_pk", ["repo_uid", "tag", "seq"])
    .execute();
  await db.schema
    .createIndex("tag_history_time")
    .on("tag_history")
    .columns(["repo_uid", "tag", "update_time", "seq"])
    .execute();

  await db.schema
    .createTable("uploads")
    .addColumn("id", t.key, (c) => c.primaryKey())
    .addColumn("repo_uid", t.key, (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("uploads_update").on("uploads").columns(["update_time"]).execute();

  await addRowCounters(db, "repos");
  await addRowCounters(db, "tags");
}
