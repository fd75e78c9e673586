import { type Kysely, sql } from "kysely";
import { columnTypes } from "./column-types.ts";
import { addOrgDigests } from "./org-digests.ts";

/**
 * Online garbage collection and storage quotas (docs/operations.md). What each manifest
 * references is kept as rows, so reachability is computed from the database alone; blobs,
 * links and manifests learn when a push last relied on them (`last_time`), the grace window's
 * clock; a blob row being deleted by a collection is `doomed` until its bytes are gone; uploads
 * about to write bytes hold a claim the collector respects; the collector runs under a lease and
 * records each run; organisations may have a byte quota.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema.alterTable("blobs").addColumn("last_time", t.key).execute();
  await db.schema.alterTable("blobs").addColumn("doomed", t.key).execute();
  await db.schema.alterTable("repo_blobs").addColumn("last_time", t.key).execute();
  await db.schema.alterTable("manifests").addColumn("last_time", t.key).execute();
  await db.schema
    .alterTable("manifests")
    .addColumn("refs_recorded", "integer", (c) => c.notNull().defaultTo(0))
    .execute();
  await sql`update blobs set last_time = create_time`.execute(db);
  await sql`update repo_blobs set last_time = create_time`.execute(db);
  await sql`update manifests set last_time = create_time`.execute(db);
  // A manifest's bytes are a blob of the store too: one row per digest, so content is
  // collected the same way whatever kind of object it holds.
  await sql`insert into blobs (digest, size, create_time, last_time)
    select digest, max(size), min(create_time), min(create_time) from manifests m
    where not exists (select 1 from blobs b where b.digest = m.digest)
    group by digest`.execute(db);
  await db.schema.createIndex("repo_blobs_digest").on("repo_blobs").column("digest").execute();
  await db.schema.createIndex("manifests_digest").on("manifests").column("digest").execute();
  await db.schema
    .createIndex("tag_history_digest")
    .on("tag_history")
    .columns(["repo_uid", "digest"])
    .execute();
  await db.schema.createIndex("tags_digest").on("tags").columns(["parent_uid", "digest"]).execute();

  await db.schema
    .createTable("manifest_refs")
    .addColumn("repo_uid", t.key, (c) => c.notNull())
    .addColumn("manifest_digest", t.key, (c) => c.notNull())
    .addColumn("digest", t.key, (c) => c.notNull())
    .addColumn("kind", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("manifest_refs_pk", ["repo_uid", "manifest_digest", "digest"])
    .execute();
  await db.schema
    .createIndex("manifest_refs_target")
    .on("manifest_refs")
    .columns(["repo_uid", "digest"])
    .execute();

  await db.schema
    .createTable("blob_claims")
    .addColumn("id", t.key, (c) => c.primaryKey())
    .addColumn("digest", t.key, (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .execute();
  await db.schema.createIndex("blob_claims_digest").on("blob_claims").column("digest").execute();

  await db.schema
    .createTable("leases")
    .addColumn("name", t.key, (c) => c.primaryKey())
    .addColumn("holder", t.key, (c) => c.notNull())
    .addColumn("expire_time", t.key, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("gc_runs")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("trigger", t.key, (c) => c.notNull())
    .addColumn("dry_run", "integer", (c) => c.notNull())
    .addColumn("state", t.key, (c) => c.notNull())
    .addColumn("start_time", t.key, (c) => c.notNull())
    .addColumn("end_time", t.key, (c) => c.notNull())
    .addColumn("manifests_deleted", "bigint", (c) => c.notNull())
    .addColumn("links_deleted", "bigint", (c) => c.notNull())
    .addColumn("blobs_deleted", "bigint", (c) => c.notNull())
    .addColumn("bytes_reclaimed", "bigint", (c) => c.notNull())
    .addColumn("uploads_expired", "bigint", (c) => c.notNull())
    .addColumn("files_swept", "bigint", (c) => c.notNull())
    .addColumn("duration_ms", "bigint", (c) => c.notNull())
    .addColumn("error", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("gc_runs_start")
    .on("gc_runs")
    .columns(["start_time", "uid"])
    .execute();

  await db.schema
    .createTable("org_quotas")
    .addColumn("group_uid", t.key, (c) => c.primaryKey())
    .addColumn("quota_bytes", "bigint", (c) => c.notNull())
    .addColumn("warned", "integer", (c) => c.notNull().defaultTo(0))
    .addColumn("update_time", t.key, (c) => c.notNull())
    .execute();
  await addOrgDigests(db);
}
