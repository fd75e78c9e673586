import type { Kysely } from "kysely";
import { addRowCounters } from "./0002-list-counts.ts";
import { columnTypes } from "./column-types.ts";

/**
 * Sign-in and federation: identity providers and their group mappings, more identity kinds
 * (claim patterns, static keys, signed-in users), invites, terms, account associations, and
 * the short-lived state of browser sign-ins and refresh tokens.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const t = columnTypes(db);
  for (const [column, fallback] of [
    ["issuer_pattern", ""],
    ["subject_pattern", ""],
    ["audience", ""],
    ["claims", "{}"],
    ["issuer_keys", ""],
    ["email", ""],
    ["provider_uid", ""],
  ] as const) {
    await db.schema
      .alterTable("identities")
      .addColumn(column, "text", (c) => c.notNull().defaultTo(fallback))
      .execute();
  }
  await db.schema.alterTable("identities").addColumn("expire_time", t.key).execute();
  await db.schema
    .alterTable("role_bindings")
    .addColumn("mapping_uid", t.key, (c) => c.notNull().defaultTo(""))
    .execute();

  await db.schema
    .createTable("identity_providers")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("name", t.key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("issuer", "text", (c) => c.notNull())
    .addColumn("client_id", "text", (c) => c.notNull())
    .addColumn("client_secret", "text", (c) => c.notNull())
    .addColumn("additional_scopes", "text", (c) => c.notNull())
    .addColumn("groups_claim", "text", (c) => c.notNull())
    .addColumn("default_role_uid", t.key, (c) => c.notNull())
    .addColumn("pkce_enabled", "integer", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .execute();
  await listIndexes(db, "identity_providers", true);

  await db.schema
    .createTable("external_group_role_mappings")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("external_group_id", t.key, (c) => c.notNull())
    .addColumn("role_uid", t.key, (c) => c.notNull())
    .addColumn("scope_uid", t.key, (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addUniqueConstraint("external_group_role_mappings_unique", [
      "parent_uid",
      "external_group_id",
      "role_uid",
      "scope_uid",
    ])
    .execute();
  await listIndexes(db, "external_group_role_mappings", false);

  await db.schema
    .createTable("account_associations")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("name", t.key, (c) => c.notNull())
    .addColumn("description", "text", (c) => c.notNull())
    .addColumn("accounts", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .execute();
  await listIndexes(db, "account_associations", true);

  await db.schema
    .createTable("group_invites")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("role_uid", t.key, (c) => c.notNull())
    .addColumn("email", "text", (c) => c.notNull())
    .addColumn("key_id", t.key, (c) => c.notNull().unique())
    .addColumn("code_hash", t.key, (c) => c.notNull().unique())
    .addColumn("single_use", "integer", (c) => c.notNull())
    .addColumn("used_time", t.key)
    .addColumn("expire_time", t.key, (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .execute();
  await listIndexes(db, "group_invites", false);

  await db.schema
    .createTable("terms_acceptances")
    .addColumn("uid", t.key, (c) => c.primaryKey())
    .addColumn("parent_uid", t.key, (c) => c.notNull())
    .addColumn("doc_id", t.key, (c) => c.notNull())
    .addColumn("accepted_by", "text", (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .addColumn("update_time", t.key, (c) => c.notNull())
    .addUniqueConstraint("terms_acceptances_doc", ["parent_uid", "doc_id"])
    .execute();
  await listIndexes(db, "terms_acceptances", false);

  await db.schema
    .createTable("sign_ins")
    .addColumn("state", t.key, (c) => c.primaryKey())
    .addColumn("provider_uid", t.key, (c) => c.notNull())
    .addColumn("data", "text", (c) => c.notNull())
    .addColumn("code_hash", t.key, (c) => c.unique())
    .addColumn("identity_uid", t.key)
    .addColumn("expire_time", t.key, (c) => c.notNull())
    .execute();

  await db.schema
    .createTable("refresh_tokens")
    .addColumn("token_hash", t.key, (c) => c.primaryKey())
    .addColumn("family", t.key, (c) => c.notNull())
    .addColumn("identity_uid", t.key, (c) => c.notNull())
    .addColumn("used_time", t.key)
    .addColumn("revoked_time", t.key)
    .addColumn("expire_time", t.key, (c) => c.notNull())
    .addColumn("create_time", t.key, (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex("refresh_tokens_family")
    .on("refresh_tokens")
    .columns(["family"])
    .execute();

  for (const table of [
    "identity_providers",
    "external_group_role_mappings",
    "account_associations",
    "group_invites",
    "terms_acceptances",
  ]) {
    await addRowCounters(db, table);
  }
}

/** The list indexes of DESIGN §3: by parent, by creation and update time, and by name. */
async function listIndexes(db: Kysely<unknown>, table: string, named: boolean): Promise<void> {
  const index = (suffix: string, columns: string[]) =>
    db.schema.createIndex(`${table}_${suffix}`).on(table).columns(columns).execute();
  await index("parent", ["parent_uid", "uid"]);
  await index("create", ["create_time", "uid"]);
  await index("update", ["update_time", "uid"]);
  if (named) await index("name", ["name", "uid"]);
}
