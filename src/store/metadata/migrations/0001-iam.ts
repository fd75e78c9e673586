import type { Kysely } from "kysely";
import { columnTypes } from "./column-types.ts";

/** Groups, identities, roles, role bindings, signing keys and settings. */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  await db.schema
    .createTable("groups")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("name", t.key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .execute();
  await listIndexes(db, "groups");
  await db.schema
    .createIndex("groups_sibling_name")
    .on("groups")
    .columns(["parent_uid", "name"])
    .unique()
    .execute();

  await db.schema
    .createTable("identities")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("name", t.key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("subject", "text", (c) => c.notNull())
    .addColumn("last_seen_time", t.key)
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .execute();
  await listIndexes(db, "identities");
  await db.schema
    .createIndex("identities_last_seen")
    .on("identities")
    .columns(["last_seen_time", "uid"])
    .execute();

  await db.schema
    .createTable("roles")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("name", t.key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("capabilities", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .execute();
  await listIndexes(db, "roles");

  await db.schema
    .createTable("role_bindings")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("identity_uid", t.key, (c) => c.notNull())
    .addColumn("role_uid", t.key, (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addUniqueConstraint("role_bindings_unique", ["parent_uid", "identity_uid", "role_uid"])
    .execute();
  await db.schema
    .createIndex("role_bindings_identity")
    .on("role_bindings")
    .columns(["identity_uid", "uid"])
    .execute();
  await db.schema
    .createIndex("role_bindings_role")
    .on("role_bindings")
    .columns(["role_uid", "uid"])
    .execute();
  await db.schema
    .createIndex("role_bindings_create")
    .on("role_bindings")
    .columns(["create_time", "uid"])
    .execute();
  await db.schema
    .createIndex("role_bindings_update")
    .on("role_bindings")
    .columns(["update_time", "uid"])
    .execute();

  await db.schema
    .createTable("signing_keys")
    .addColumn("kid", t.key, (c) => c.primaryKey())
    .addColumn("private_jwk", "text", (c) => c.notNull())
    .addColumn("public_jwk", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("expire_time", t.key, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("settings")
    .addColumn("key", t.key, (c) => c.primaryKey())
    .addColumn("value", "text", (c) => c.notNull())
    .execute();
}

/** The indexes every listed table with name and times needs (DESIGN §3). */
async function listIndexes(db: Kysely<unknown>, table: string): Promise<void> {
  const index = (suffix: string, columns: string[]) =>
    db.schema.createIndex(`${table}_${suffix}`).on(table).columns(columns).execute();
  await index("parent", ["parent_uid", "uid"]);
  await index("name", ["name", "uid"]);
  await index("create", ["create_time", "uid"]);
  await index("update", ["update_time", "uid"]);
}
