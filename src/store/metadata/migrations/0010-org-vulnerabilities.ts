import { type Kysely, sql } from "kysely";
import { columnTypes } from "./column-types.ts";

/**
 * An organisation's private vulnerability metadata, apart from the public rows everyone reads:
 * an import into an organisation's groups writes here, never into `vulnerabilities` (DESIGN
 * §8a). Keyed by organisation first, so one organisation's view is a prefix of the key.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("org_vulnerabilities")
    .addColumn("org_uid", t.key, (c) => c.notNull())
    .addColumn("id", t.key, (c) => c.notNull())
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
    .addPrimaryKeyConstraint("org_vulnerabilities_pk", ["org_uid", "id"])
    .execute();

  await db.schema
    .createTable("org_vulnerability_aliases")
    .addColumn("org_uid", t.key, (c) => c.notNull())
    .addColumn("id", t.key, (c) => c.notNull())
    .addColumn("alias", t.key, (c) => c.notNull())
    .addPrimaryKeyConstraint("org_vulnerability_aliases_pk", ["org_uid", "id", "alias"])
    .$call((b) => (t.postgres ? b : b.modifyEnd(sql`without rowid`)))
    .execute();
}
