import { type Kysely, sql } from "kysely";
import { columnTypes } from "./column-types.ts";

/**
 * Library repositories: artifacts per organisation and ecosystem, their versions (ranked in the
 * ecosystem's version order, so a page in `version desc` is an index range) and their files.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("library_artifacts")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("ecosystem", t.key, (c) => c.notNull())
    .addColumn("name", t.key, (c) => c.notNull())
    .addColumn("display_name", "text", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("latest_version", "text", (c) => c.notNull())
    .addColumn("version_count", "integer", (c) => c.notNull())
    .addColumn("dist_tags", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addUniqueConstraint("library_artifacts_name", ["parent_uid", "ecosystem", "name"])
    .execute();
  await db.schema
    .createIndex("library_artifacts_catalogue")
    .on("library_artifacts")
    .columns(["ecosystem", "name", "uid"])
    .execute();

  await db.schema
    .createTable("library_versions")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("artifact_uid", t.key, (c) => c.notNull())
    .addColumn("version", t.key, (c) => c.notNull())
    .addColumn("version_rank", "integer", (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("size_bytes", "bigint", (c) => c.notNull())
    .addColumn("metadata", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addUniqueConstraint("library_versions_version", ["artifact_uid", "version"])
    .execute();
  await db.schema
    .createIndex("library_versions_rank")
    .on("library_versions")
    // uid last: the list engine's tie-break, so a page needs no sort at all.
    .columns(["artifact_uid", "version_rank", "uid"])
    .execute();

  // The catalogue finds a version's advisories by package name, case-insensitively (OSV writes
  // "Jinja2", PEP 503 "jinja2"): an index on the lower-cased name keeps that a lookup.
  await db.schema
    .createIndex("advisories_lower_name")
    .on("advisories")
    .expression(sql`lower(artifact_name)`)
    .execute();

  await db.schema
    .createTable("library_files")
    .addColumn("artifact_uid", t.key, (c) => c.notNull())
    .addColumn("version_uid", t.key, (c) => c.notNull())
    .addColumn("filename", t.key, (c) => c.notNull())
    .addColumn("digest", t.key, (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("sha1", "text", (c) => c.notNull())
    .addColumn("md5", "text", (c) => c.notNull())
    .addColumn("sha512", "text", (c) => c.notNull())
    .addColumn("content_type", "text", (c) => c.notNull())
    .addColumn("metadata", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("library_files_pk", ["artifact_uid", "filename"])
    .execute();
  await db.schema
    .createIndex("library_files_version")
    .on("library_files")
    .columns(["version_uid", "filename"])
    .execute();
}
