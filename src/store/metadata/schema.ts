import type { ColumnType, Generated } from "kysely";
import type { DeliveriesTable, EventsTable, SubscriptionsTable } from "./events-schema.ts";
import type {
  LibraryArtifactsTable,
  LibraryFilesTable,
  LibraryVersionsTable,
} from "./libraries-schema.ts";
import type {
  AdvisoriesTable,
  AdvisoryAliasesTable,
  OrgVulnerabilitiesTable,
  OrgVulnerabilityAliasesTable,
  VulnerabilitiesTable,
  VulnerabilityAliasesTable,
} from "./security-data-schema.ts";
import type {
  ImagePackagesTable,
  ImageSbomsTable,
  ImageScansTable,
  VulnReportsTable,
} from "./vuln-reports-schema.ts";

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
  /** claimMatch.issuer, or staticKeys.issuer; "" when issuer_pattern is used. */
  issuer: string;
  /** claimMatch.subject, or staticKeys.subject; "" when subject_pattern is used. */
  subject: string;
  /** claimMatch.issuerPattern: an anchored regular expression, or "". */
  issuer_pattern: string;
  /** claimMatch.subjectPattern: an anchored regular expression, or "". */
  subject_pattern: string;
  /** claimMatch.audience, or staticKeys.audiences[0]; "" means Lading's own audiences. */
  audience: string;
  /** claimMatch.claims: JSON object of extra exact claim matches, "{}" when none. */
  claims: string;
  /** staticKeys.issuerKeys: a JWKS as JSON; "" for any other kind of identity. */
  issuer_keys: string;
  /** staticKeys.expirationTime; null when the identity does not expire. */
  expire_time: string | null;
  /** Verified email of a signed-in user, or "". */
  email: string;
  /** The identity provider a signed-in user came through, or "". */
  provider_uid: string;
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
  /**
   * The external group role mapping that made this binding at a sign-in, or "" for a binding
   * made through the API. Sign-in adds and removes only bindings with a mapping uid.
   */
  mapping_uid: string;
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
  /** When a push last relied on the blob (the garbage collector's grace clock). */
  last_time: string | null;
  /** The collection deleting the bytes now; the row goes once they are gone. */
  doomed: string | null;
}

/** Which blobs a repository may serve (pushed or mounted there). */
export interface RepoBlobsTable {
  repo_uid: string;
  digest: string;
  create_time: string;
  /** When a push last relied on the link. */
  last_time: string | null;
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
  /** When a push last relied on the manifest. */
  last_time: string | null;
  /** 1 once its references are in manifest_refs (manifests older than migration 0013: 0). */
  refs_recorded: ColumnType<number, number | undefined, number>;
}

/** What a manifest references in its repo: `blob` (config, layers) or `manifest` (index child). */
export interface ManifestRefsTable {
  repo_uid: string;
  manifest_digest: string;
  digest: string;
  kind: string;
}

/** A write of `digest`'s bytes under way: the collector does not delete them meanwhile. */
export interface BlobClaimsTable {
  id: string;
  digest: string;
  create_time: string;
}

/** Work one replica at a time does, leased until `expire_time`. */
export interface LeasesTable {
  name: string;
  holder: string;
  expire_time: string;
}

/** One garbage collection and what it did. */
export interface GcRunsTable {
  uid: string;
  /** `schedule`, `cli` or `api`. */
  trigger: string;
  dry_run: number;
  /** `running`, `done` or `failed`. */
  state: string;
  start_time: string;
  end_time: string;
  manifests_deleted: string | number | bigint;
  links_deleted: string | number | bigint;
  blobs_deleted: string | number | bigint;
  bytes_reclaimed: string | number | bigint;
  uploads_expired: string | number | bigint;
  files_swept: string | number | bigint;
  duration_ms: string | number | bigint;
  error: string;
}

/** Each digest an organisation stores, once, with how many links and manifests hold it. */
export interface OrgDigestsTable {
  org_uid: string;
  digest: string;
  size: string | number | bigint;
  refs: string | number | bigint;
}

/** Sums of org_digests per organisation, kept by triggers. */
export interface OrgUsageTable {
  org_uid: string;
  bytes: string | number | bigint;
  objects: string | number | bigint;
}

/** An organisation's storage quota in bytes. */
export interface OrgQuotasTable {
  group_uid: string;
  quota_bytes: string | number | bigint;
  /** 1 once the 80 % event was recorded, until usage falls below it again. */
  warned: ColumnType<number, number | undefined, number>;
  update_time: string;
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
  /** When a manifest GET by this tag last touched it, at most hourly; null if never. */
  pull_time?: string | null;
  /** When retention deletes the tag; null for never. */
  expire_time?: string | null;
}

/** A deleted repo, restorable with its tags until the deleted-repo window passes. */
export interface DeletedReposTable extends ReposTable {
  delete_time: string;
}

/**
 * An immutability rule or a retention policy on the tags of a repo, or of every repo under a
 * group or organisation.
 */
export interface TagPoliciesTable {
  /** `<parent uid>/<16 hex>`. */
  uid: string;
  /** The group or repo it applies under. */
  parent_uid: string;
  root_uid: string;
  /** immutable, keep_newest, not_pushed or not_pulled. */
  kind: string;
  /** A tag glob: `*` any run of characters, `?` one. */
  pattern: string;
  /** keep_newest: how many of the matching tags stay. */
  count: number;
  /** not_pushed, not_pulled: after how many days a matching tag goes. */
  days: number;
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
  /** move (a push or CreateTag), restore, delete or expire; defaults to move. */
  action?: string;
  /** The tag's uid at the time; null on records older than the column. */
  tag_uid?: string | null;
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
  /** The claim of the request appending a chunk now; "" when none (migration 0015). */
  writer: Generated<string>;
  /** When that claim lapses unless renewed (a replica that died mid-chunk). */
  writer_until: string | null;
}

/** Rows per (table, parent), kept by triggers; see migration 0002. */
export interface ListCountsTable {
  table_name: string;
  parent_uid: string;
  n: string | number | bigint;
}

export interface IdentityProvidersTable {
  uid: string;
  /** The group the provider signs users in for. */
  parent_uid: string;
  name: string;
  description: string;
  issuer: string;
  client_id: string;
  /** Write-only: never returned by the API. "" when the provider uses PKCE alone. */
  client_secret: string;
  /** JSON array of scopes requested besides `openid`. */
  additional_scopes: string;
  /** The id-token claim carrying group memberships, or "". */
  groups_claim: string;
  /** Role bound on the provider's group at a user's first sign-in. */
  default_role_uid: string;
  /** 0 or 1. */
  pkce_enabled: number;
  create_time: string;
  update_time: string;
}

/** Maps a value of a provider's groups claim to a role on a group (no update). */
export interface ExternalGroupRoleMappingsTable {
  /** `<identity provider uid>/<16 hex>`. */
  uid: string;
  /** The identity provider. */
  parent_uid: string;
  external_group_id: string;
  role_uid: string;
  /** The group the role is bound on. */
  scope_uid: string;
  create_time: string;
  update_time: string;
}

/** Cloud accounts of a group; at most one per group, and its uid is the group's uid. */
export interface AccountAssociationsTable {
  /** The group's uid. */
  uid: string;
  /** The group's parent ("" for an organisation). */
  parent_uid: string;
  name: string;
  description: string;
  /** JSON of the provider blocks (amazon, google, azure, github, lading). */
  accounts: string;
  create_time: string;
  update_time: string;
}

export interface GroupInvitesTable {
  uid: string;
  /** The group the invite binds its role on. */
  parent_uid: string;
  role_uid: string;
  /** Only this verified email may accept; "" means anyone holding the code. */
  email: string;
  /** Short public identifier shown by List. */
  key_id: string;
  /** SHA-256 (hex) of the invite code; the code itself is never stored. */
  code_hash: string;
  /** 0 or 1. */
  single_use: number;
  /** When a single-use invite was accepted. */
  used_time: string | null;
  expire_time: string;
  create_time: string;
  update_time: string;
}

export interface TermsAcceptancesTable {
  uid: string;
  /** The group the terms were accepted for. */
  parent_uid: string;
  doc_id: string;
  /** The accepting identity's uid. */
  accepted_by: string;
  create_time: string;
  update_time: string;
}

/** A browser sign-in in progress, keyed by the OAuth `state` sent to the provider. */
export interface SignInsTable {
  state: string;
  provider_uid: string;
  /** JSON: nonce, PKCE verifier, the CLI's redirect, state and code challenge. */
  data: string;
  /** SHA-256 of the one-time code handed to the CLI, once the provider called back. */
  code_hash: string | null;
  identity_uid: string | null;
  expire_time: string;
}

/** Refresh tokens, stored hashed; a family is one sign-in's chain of rotations. */
export interface RefreshTokensTable {
  token_hash: string;
  family: string;
  identity_uid: string;
  used_time: string | null;
  revoked_time: string | null;
  expire_time: string;
  create_time: string;
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
  tag_policies: TagPoliciesTable;
  deleted_repos: DeletedReposTable;
  uploads: UploadsTable;
  manifest_refs: ManifestRefsTable;
  blob_claims: BlobClaimsTable;
  leases: LeasesTable;
  gc_runs: GcRunsTable;
  org_quotas: OrgQuotasTable;
  org_digests: OrgDigestsTable;
  org_usage: OrgUsageTable;
  identity_providers: IdentityProvidersTable;
  external_group_role_mappings: ExternalGroupRoleMappingsTable;
  account_associations: AccountAssociationsTable;
  group_invites: GroupInvitesTable;
  terms_acceptances: TermsAcceptancesTable;
  sign_ins: SignInsTable;
  refresh_tokens: RefreshTokensTable;
  advisories: AdvisoriesTable;
  advisory_aliases: AdvisoryAliasesTable;
  vulnerabilities: VulnerabilitiesTable;
  vulnerability_aliases: VulnerabilityAliasesTable;
  org_vulnerabilities: OrgVulnerabilitiesTable;
  org_vulnerability_aliases: OrgVulnerabilityAliasesTable;
  image_scans: ImageScansTable;
  image_sboms: ImageSbomsTable;
  image_packages: ImagePackagesTable;
  vuln_reports: VulnReportsTable;
  subscriptions: SubscriptionsTable;
  events: EventsTable;
  deliveries: DeliveriesTable;
  library_artifacts: LibraryArtifactsTable;
  library_versions: LibraryVersionsTable;
  library_files: LibraryFilesTable;
}

/** The columns of an identity row that only some kinds of identity use, all unset. */
export const identityExtras = {
  issuer_pattern: "",
  subject_pattern: "",
  audience: "",
  claims: "{}",
  issuer_keys: "",
  expire_time: null,
  email: "",
  provider_uid: "",
} as const satisfies Partial<IdentitiesTable>;
