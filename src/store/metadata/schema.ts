/**
 * Table shapes of the metadata store. Timestamps are ISO 8601 UTC strings with milliseconds,
 * which sort correctly as text on both dialects; uid and name columns use binary collation so
 * both dialects order them the same way.
 */
export interface GroupsTable {
  uid: string;
  /** "" for an organisation (root group). */
  parent_uid: string;
  name: string;
  description: string;
  create_time: string;
  update_time: string;
}

export interface IdentitiesTable {
  uid: string;
  parent_uid: string;
  name: string;
  description: string;
  issuer: string;
  subject: string;
  last_seen_time: string | null;
  create_time: string;
  update_time: string;
}

export interface RolesTable {
  uid: string;
  /** "" for a built-in role. */
  parent_uid: string;
  name: string;
  description: string;
  /** JSON array of dotted capability names. */
  capabilities: string;
  create_time: string;
  update_time: string;
}

export interface RoleBindingsTable {
  uid: string;
  /** The group the binding is on. */
  parent_uid: string;
  identity_uid: string;
  role_uid: string;
  create_time: string;
  update_time: string;
}

export interface SigningKeysTable {
  kid: string;
  /** Private JWK as JSON. */
  private_jwk: string;
  /** Public JWK as JSON. */
  public_jwk: string;
  create_time: string;
  /** Tokens signed by this key expire before this time; the key leaves the JWKS after it. */
  expire_time: string;
}

export interface SettingsTable {
  key: string;
  value: string;
}

/** Rows per (table, parent), kept by triggers; see migration 0002. */
export interface ListCountsTable {
  table_name: string;
  parent_uid: string;
  n: string | number | bigint;
}

/** The Kysely database type of the metadata store. */
export interface MetadataSchema {
  groups: GroupsTable;
  identities: IdentitiesTable;
  roles: RolesTable;
  role_bindings: RoleBindingsTable;
  signing_keys: SigningKeysTable;
  settings: SettingsTable;
  list_counts: ListCountsTable;
}
