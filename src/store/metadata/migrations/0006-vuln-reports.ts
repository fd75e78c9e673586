import type { Kysely } from "kysely";
import { columnTypes } from "./column-types.ts";

/**
 * Vulnerability reports: what each image manifest holds (its SBOMs and their packages), the
 * scan queue, and every report generation. Rows are per repository and manifest digest, as
 * manifests are: the same digest in two repositories is scanned once per repository, which
 * keeps each organisation's data under its own subtree.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  // `query` totals are counted in memory now (src/vulnerabilities/advisory-search-index.ts);
  // this index only slowed every advisory write.
  await db.schema.dropIndex("advisories_search").execute();
  // OSV ranges, so a package is matched by where its version falls, not only by the fix.
  await db.schema
    .alterTable("advisories")
    .addColumn("affected", "text", (c) => c.notNull().defaultTo(""))
    .execute();
  await db.schema
    .createTable("image_scans")
    .addColumn("repo_uid", t.key, (c) => c.notNull())
    .addColumn("digest", t.key, (c) => c.notNull())
    .addColumn("state", t.key, (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("rematch", "integer", (c) => c.notNull())
    .addColumn("attempts", "integer", (c) => c.notNull())
    .addColumn("claim_time", t.key)
    .addColumn("sbom_digest", "text", (c) => c.notNull())
    .addColumn("sbom_source", "text", (c) => c.notNull())
    .addColumn("architecture", "text", (c) => c.notNull())
    .addColumn("os", "text", (c) => c.notNull())
    .addColumn("distro", "text", (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("generation", "integer", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("image_scans_pk", ["repo_uid", "digest"])
    .execute();
  await db.schema
    .createIndex("image_scans_queue")
    .on("image_scans")
    .columns(["state", "update_time"])
    .execute();

  await db.schema
    .createTable("image_sboms")
    .addColumn("repo_uid", t.key, (c) => c.notNull())
    .addColumn("image_digest", t.key, (c) => c.notNull())
    .addColumn("sbom_digest", t.key, (c) => c.notNull())
    .addColumn("source", "text", (c) => c.notNull())
    .addColumn("format", "text", (c) => c.notNull())
    .addColumn("state", "text", (c) => c.notNull())
    .addColumn("reason", "text", (c) => c.notNull())
    .addColumn("package_count", "integer", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("image_sboms_pk", ["repo_uid", "image_digest", "sbom_digest"])
    .execute();

  await db.schema
    .createTable("image_packages")
    .addColumn("repo_uid", t.key, (c) => c.notNull())
    .addColumn("image_digest", t.key, (c) => c.notNull())
    .addColumn("sbom_digest", t.key, (c) => c.notNull())
    .addColumn("name", t.key, (c) => c.notNull())
    .addColumn("version", "text", (c) => c.notNull())
    .addColumn("purl", "text", (c) => c.notNull())
    .addColumn("ecosystem", "text", (c) => c.notNull())
    .addColumn("license", "text", (c) => c.notNull())
    .addColumn("origin", "text", (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("image_packages_image")
    .on("image_packages")
    .columns(["repo_uid", "image_digest"])
    .execute();
  // A new advisory for a package name finds the images to re-match through this index.
  await db.schema
    .createIndex("image_packages_name")
    .on("image_packages")
    .columns(["name", "repo_uid", "image_digest"])
    .execute();
  // Advisories name source packages (an apk origin, a dpkg Source): this finds the images
  // holding their subpackages.
  await db.schema
    .createIndex("image_packages_origin")
    .on("image_packages")
    .columns(["origin", "repo_uid", "image_digest"])
    .execute();

  await db.schema
    .createTable("vuln_reports")
    .addColumn("repo_uid", t.key, (c) => c.notNull())
    .addColumn("digest", t.key, (c) => c.notNull())
    .addColumn("generation", "integer", (c) => c.notNull())
    .addColumn("matches", "text", (c) => c.notNull())
    .addColumn("counts", "text", (c) => c.notNull())
    .addColumn("scanner_version", "text", (c) => c.notNull())
    .addColumn("db_time", t.key, (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("vuln_reports_pk", ["repo_uid", "digest", "generation"])
    .execute();
}
