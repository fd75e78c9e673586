/**
 * Table shapes of the security data: advisories and vulnerability metadata. JSON columns hold
 * the normalised feed records (src/vulnerabilities/feeds/feed-records.ts).
 *
 * Who may write (DESIGN §8a, docs/security.md "Shared data"):
 * - `vulnerabilities` and `vulnerability_aliases` are read by everyone, anonymous callers
 *   included: only the operator's imports write them (`lading admin import` into the public
 *   advisories group, or an import into that group through the API, which only its own grants
 *   allow).
 * - `org_vulnerabilities` and `org_vulnerability_aliases` hold an organisation's private copies:
 *   written only by imports into that organisation's groups, read only in its view.
 * - `advisories` and `advisory_aliases`: a row under the public advisories group is the
 *   operator's; a row under an organisation's group is written by imports into that group
 *   (`advisories.create` and `advisories.update` there) and read only where the caller holds
 *   `advisories.list`, or for that organisation's own images.
 */
export interface AdvisoriesTable {
  /** <group uid>/<16 hex>: the group that authored it, or the public advisories group. */
  uid: string;
  parent_uid: string;
  /** CGA-xxxx-xxxx-xxxx. */
  advisory_id: string;
  artifact_name: string;
  artifact_type: string;
  artifact_architecture: string;
  component_name: string;
  component_type: string;
  component_location: string;
  package_namespace: string;
  /** JSON array of strings. */
  aliases: string;
  /** JSON array of AdvisoryEventRecord with a uid each, oldest first. */
  events: string;
  /** One bit per event type present (advisoryEventTypes order), for the event_types filter. */
  event_mask: number;
  latest_event_type: string;
  latest_event_time: string;
  /** artifact, component and aliases, lower-cased and joined by newlines: the query filter. */
  search_text: string;
  author: string;
  /** The import source (e.g. "advisories", "osv", or --source NAME). */
  source: string;
  /** The entry's key within its source. */
  source_key: string;
  /** The source document the entry came from; withdrawal works per document. */
  document: string;
  /** JSON array of OSV `affected` entries (package, ranges) for matching; "" when none. */
  affected: string;
  /** SHA-256 of the stored content: a re-import that changes nothing writes nothing. */
  content_hash: string;
  withdrawn_time: string | null;
  withdrawn_reason: string;
  create_time: string;
  update_time: string;
}

/** The aliases of each advisory; written with its advisory, by the same writer. */
export interface AdvisoryAliasesTable {
  alias: string;
  advisory_uid: string;
}

/** Public vulnerability metadata, read by everyone: written by the operator's imports only. */
export interface VulnerabilitiesTable {
  /** CVE-…, GHSA-…, GO-…, or any OSV id. */
  id: string;
  summary: string;
  details: string;
  /** JSON array of strings. */
  aliases: string;
  /** JSON array of {type, url}. */
  references: string;
  /** JSON array of {type, score, baseScore?}. */
  severities: string;
  /** JSON array of CWE-n. */
  cwes: string;
  published: string;
  modified: string;
  /** JSON {dateAdded, dueDate, knownRansomwareCampaignUse, vulnerabilityName}, or "" if not in KEV. */
  kev: string;
  epss_score: number | null;
  epss_percentile: number | null;
  epss_date: string;
  withdrawn_time: string | null;
  withdrawn_reason: string;
  create_time: string;
  update_time: string;
}

/**
 * Both directions of every public alias pair, so a lookup by either id finds the other.
 * Written by the operator's imports only, with `vulnerabilities`.
 */
export interface VulnerabilityAliasesTable {
  id: string;
  alias: string;
}

/**
 * An organisation's private copy of the metadata of one id: what its own imports said, merged
 * like a public row but starting empty. Read only in that organisation's view, over the public
 * row (src/vulnerabilities/metadata-view.ts); written only by imports into its groups.
 */
export interface OrgVulnerabilitiesTable extends VulnerabilitiesTable {
  /** The organisation (root group uid) whose imports wrote it. */
  org_uid: string;
}

/** The alias pairs an organisation's imports gave, both directions; its view only. */
export interface OrgVulnerabilityAliasesTable extends VulnerabilityAliasesTable {
  org_uid: string;
}
