import { type Kysely, sql } from "kysely";
import { columnTypes } from "./column-types.ts";

/** The tables whose rows make a digest part of an organisation's storage. */
const usageTables = ["repo_blobs", "manifests"] as const;

/**
 * `org_digests(org_uid, digest, size, refs)`: each digest an organisation stores once, with
 * how many blob links and manifest rows of its repos hold it, kept by triggers in the same
 * transaction as every insert and delete of those rows (a repo never changes organisation),
 * and backfilled. Organisation usage is then a sum over one index range. The size is copied
 * when the digest joins, so a delete subtracts what an insert added.
 */
export async function addOrgDigests(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("org_digests")
    .addColumn("org_uid", t.key, (c) => c.notNull())
    .addColumn("digest", t.key, (c) => c.notNull())
    .addColumn("size", "bigint", (c) => c.notNull())
    .addColumn("refs", "bigint", (c) => c.notNull())
    .addPrimaryKeyConstraint("org_digests_pk", ["org_uid", "digest"])
    .execute();
  await db.schema
    .createTable("org_usage")
    .addColumn("org_uid", t.key, (c) => c.primaryKey())
    .addColumn("bytes", "bigint", (c) => c.notNull())
    .addColumn("objects", "bigint", (c) => c.notNull())
    .execute();
  // org_usage sums org_digests: a digest joining or leaving the organisation moves it, a
  // further link or manifest of a digest it holds (an update of refs) does not.
  if (t.postgres) {
    await sql`
      CREATE FUNCTION lading_org_usage() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        IF TG_OP = 'INSERT' THEN
          INSERT INTO org_usage (org_uid, bytes, objects) VALUES (NEW.org_uid, NEW.size, 1)
            ON CONFLICT (org_uid) DO UPDATE
            SET bytes = org_usage.bytes + NEW.size, objects = org_usage.objects + 1;
        ELSE
          UPDATE org_usage SET bytes = bytes - OLD.size, objects = objects - 1
            WHERE org_uid = OLD.org_uid;
        END IF;
        RETURN NULL;
      END $$`.execute(db);
    await sql`CREATE TRIGGER org_digests_usage AFTER INSERT OR DELETE ON org_digests
      FOR EACH ROW EXECUTE FUNCTION lading_org_usage()`.execute(db);
  } else {
    await sql`CREATE TRIGGER org_digests_usage_insert AFTER INSERT ON org_digests BEGIN
      INSERT INTO org_usage (org_uid, bytes, objects) VALUES (NEW.org_uid, NEW.size, 1)
        ON CONFLICT (org_uid) DO UPDATE SET bytes = bytes + NEW.size, objects = objects + 1;
    END`.execute(db);
    await sql`CREATE TRIGGER org_digests_usage_delete AFTER DELETE ON org_digests BEGIN
      UPDATE org_usage SET bytes = bytes - OLD.size, objects = objects - 1
        WHERE org_uid = OLD.org_uid;
    END`.execute(db);
  }
  if (t.postgres) {
    await sql`
      CREATE FUNCTION lading_org_digests() RETURNS trigger LANGUAGE plpgsql AS $$
      DECLARE org text;
      BEGIN
        IF TG_OP = 'INSERT' THEN
          SELECT root_uid INTO org FROM repos WHERE uid = NEW.repo_uid;
          IF org IS NOT NULL THEN
            INSERT INTO org_digests (org_uid, digest, size, refs)
              VALUES (org, NEW.digest, coalesce((SELECT size FROM blobs WHERE digest = NEW.digest), 0), 1)
              ON CONFLICT (org_uid, digest) DO UPDATE SET refs = org_digests.refs + 1;
          END IF;
        ELSE
          SELECT root_uid INTO org FROM repos WHERE uid = OLD.repo_uid;
          UPDATE org_digests SET refs = refs - 1 WHERE org_uid = org AND digest = OLD.digest;
          DELETE FROM org_digests WHERE org_uid = org AND digest = OLD.digest AND refs <= 0;
        END IF;
        RETURN NULL;
      END $$`.execute(db);
    for (const table of usageTables) {
      await sql`CREATE TRIGGER ${sql.id(`${table}_org_digests`)} AFTER INSERT OR DELETE ON ${sql.table(table)}
        FOR EACH ROW EXECUTE FUNCTION lading_org_digests()`.execute(db);
    }
  } else {
    for (const table of usageTables) {
      await sql`CREATE TRIGGER ${sql.id(`${table}_org_digests_insert`)} AFTER INSERT ON ${sql.table(table)}
        WHEN EXISTS (SELECT 1 FROM repos WHERE uid = NEW.repo_uid) BEGIN
        INSERT INTO org_digests (org_uid, digest, size, refs)
          VALUES ((SELECT root_uid FROM repos WHERE uid = NEW.repo_uid), NEW.digest,
            coalesce((SELECT size FROM blobs WHERE digest = NEW.digest), 0), 1)
          ON CONFLICT (org_uid, digest) DO UPDATE SET refs = refs + 1;
      END`.execute(db);
      await sql`CREATE TRIGGER ${sql.id(`${table}_org_digests_delete`)} AFTER DELETE ON ${sql.table(table)} BEGIN
        UPDATE org_digests SET refs = refs - 1
          WHERE org_uid = (SELECT root_uid FROM repos WHERE uid = OLD.repo_uid) AND digest = OLD.digest;
        DELETE FROM org_digests
          WHERE org_uid = (SELECT root_uid FROM repos WHERE uid = OLD.repo_uid) AND digest = OLD.digest
          AND refs <= 0;
      END`.execute(db);
    }
  }
  await sql`INSERT INTO org_digests (org_uid, digest, size, refs)
    SELECT r.root_uid, x.digest, coalesce(max(b.size), 0), count(*)
    FROM (SELECT repo_uid, digest FROM repo_blobs UNION ALL SELECT repo_uid, digest FROM manifests) x
    JOIN repos r ON r.uid = x.repo_uid
    LEFT JOIN blobs b ON b.digest = x.digest
    GROUP BY r.root_uid, x.digest`.execute(db);
}
