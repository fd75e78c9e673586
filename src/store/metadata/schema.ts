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

export interface ReposTable {
  uid: string;
  /** The group the repo was created under. */
  parent_uid: string;
  /** The organisation: the first segment of the registry path `<org name>/<repo name>`. */
  root_uid: string;
  /** The image name, may contain `/`; unique within the organisation. */
  name: string;
  description: string;
  readme: string;
  create_time: string;
  update_time: string;
}

/** Content-addressed blobs known to the registry, whatever repos link them. */
export interface BlobsTable {
  digest: string;
  size: string | number | bigint;
  create_time: string;
}

/** Which blobs a repository may serve (pushed or mounted there). */
export interface RepoBlobsTable {
  repo_uid: string;
  digest: string;
  create_time: string;
}

/** Manifests of a repository; the exact bytes live in the blob store under `digest`. */
export interface ManifestsTable {
  repo_uid: string;
  digest: string;
  media_type: string;
  /** artifactType, or the config media type, or "" (for referrers filtering). */
  artifact_type: string;
  /** The digest named by `subject`, for the referrers API. */
  subject_digest: string | null;
  size: string | number | bigint;
  create_time: string;
}

export interface TagsTable {
  /** `<repo uid>/<16 hex>`. */
  uid: string;
  /** The repo. */
  parent_uid: string;
  name: string;
  digest: string;
  /** 0 or 1. */
  deprecated: number;
  /** The seq of this tag's newest history record. */
  history_seq: string | number | bigint;
  create_time: string;
  update_time: string;
}

/** Every digest a tag has pointed to, in commit order (seq), kept after the tag is deleted. */
export interface TagHistoryTable {
  repo_uid: string;
  tag: string;
  seq: string | number | bigint;
  digest: string;
  update_time: string;
}

/** Upload sessions, shared by every replica. */
export interface UploadsTable {
  id: string;
  repo_uid: string;
  size: string | number | bigint;
  /** Blob-store driver state (JSON). */
  state: string;
  create_time: string;
  update_time: string;
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
  repos: ReposTable;
  blobs: BlobsTable;
  repo_blobs: RepoBlobsTable;
  manifests: ManifestsTable;
  tags: TagsTable;
  tag_history: TagHistoryTable;
  uploads: UploadsTable;
}
