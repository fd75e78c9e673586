import { type Kysely, sql } from "kysely";
import { columnTypes } from "./column-types.ts";

/**
 * Security data (the alias tables are clustered on their keys in SQLite, WITHOUT ROWID: one
 * b-tree fewer to write per alias): advisories (one vulnerability in one artifact, under a group), their aliases
 * for lookups, and vulnerability metadata by id with its alias joins.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("advisories")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("advisory_id", t.key, (c) => c.notNull())
    .addColumn("artifact_name", t.key, (c) => c.notNull())
    .addColumn("artifact_type", "text", (c) => c.notNull())
    .addColumn("artifact_architecture", "text", (c) => c.notNull())
    .addColumn("component_name", t.key, (c) => c.notNull())
    .addColumn("component_type", "text", (c) => c.notNull())
    .addColumn("component_location", "text", (c) => c.notNull())
    .addColumn("package_namespace", "text", (c) => c.notNull())
    .addColumn("aliases", "text", (c) => c.notNull())
    .addColumn("events", "text", (c) => c.notNull())
    .addColumn("event_mask", "integer", (c) => c.notNull())
    .addColumn("latest_event_type", t.key, (c) => c.notNull())
    .addColumn("latest_event_time", t.key, (c) => c.notNull())
    .addColumn("search_text", "text", (c) => c.notNull())
    .addColumn("author", "text", (c) => c.notNull())
    .addColumn("source", t.key, (c) => c.notNull())
    .addColumn("source_key", t.key, (c) => c.notNull())
    .addColumn("document", t.key, (c) => c.notNull())
    .addColumn("content_hash", "text", (c) => c.notNull())
    .addColumn("withdrawn_time", t.key)
    .addColumn("withdrawn_reason", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addUniqueConstraint("advisories_source_key", ["parent_uid", "source", "source_key"])
    .execute();
  const index = (name: string, columns: string[]) =>
    db.schema.createIndex(`advisories_${name}`).on("advisories").columns(columns).execute();
  // Lists show live advisories unless asked otherwise: withdrawn_time in each sort index lets
  // a page (and a skip) walk the index alone, without reading rows to test it.
  await index("name", ["artifact_name", "uid", "withdrawn_time"]);
  await index("create", ["create_time", "uid", "withdrawn_time"]);
  await index("update", ["update_time", "uid", "withdrawn_time"]);
  // The default order's index also holds search_text, so a `query` (count, page and skip)
  // is answered from the index without reading the wide rows.
  await index("advisory_id", ["advisory_id", "uid", "withdrawn_time", "search_text"]);
  // A `query` over the live rows of the visible subtrees is counted from this index alone.
  await index("search", ["uid", "withdrawn_time", "search_text"]);
  await index("component", ["component_name", "uid"]);
  await index("document", ["parent_uid", "source", "document"]);
  await index("resolved", ["latest_event_type", "latest_event_time"]);

  await db.schema
    .createTable("advisory_aliases")
    .addColumn("alias", t.key, (c) => c.notNull())
    .addColumn("advisory_uid", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("advisory_aliases_pk", ["alias", "advisory_uid"])
    .$call((b) => (t.postgres ? b : b.modifyEnd(sql`without rowid`)))
    .execute();
  await db.schema
    .createIndex("advisory_aliases_advisory")
    .on("advisory_aliases")
    .columns(["advisory_uid"])
    .execute();

  await db.schema
    .createTable("vulnerabilities")
    .addColumn("id", t.key, (c) => c.primaryKey())
    .addColumn("summary", "text", (c) => c.notNull())
    .addColumn("details", "text", (c) => c.notNull())
    .addColumn("aliases", "text", (c) => c.notNull())
    .addColumn("references", "text", (c) => c.notNull())
    .addColumn("severities", "text", (c) => c.notNull())
    .addColumn("cwes", "text", (c) => c.notNull())
    .addColumn("published", "text", (c) => c.notNull())
    .addColumn("modified", "text", (c) => c.notNull())
    .addColumn("kev", "text", (c) => c.notNull())
    .addColumn("epss_score", "double precision")
    .addColumn("epss_percentile", "double precision")
    .addColumn("epss_date", "text", (c) => c.notNull())
    .addColumn("withdrawn_time", t.key)
    .addColumn("withdrawn_reason", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("vulnerability_aliases")
    .addColumn("id", t.key, (c) => c.notNull())
    .addColumn("alias", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("vulnerability_aliases_pk", ["id", "alias"])
    .$call((b) => (t.postgres ? b : b.modifyEnd(sql`without rowid`)))
    .execute();
  await db.schema
    .createIndex("vulnerability_aliases_alias")
    .on("vulnerability_aliases")
    .columns(["alias"])
    .execute();
}
