import type { Kysely } from "kysely";
import type { ListEngine } from "../lists/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import type { AdvisorySearchIndex } from "./advisory-search-index.ts";

/** What the Vulnerabilities services share. */
export interface VulnerabilitiesContext {
  db: Kysely<MetadataSchema>;
  lists: ListEngine;
  /** Counts `query` matches from memory; one per server, created by the service if absent. */
  searchIndex?: AdvisorySearchIndex;
}

/** The error domain of Vulnerabilities API errors. */
export const vulnerabilitiesDomain = "vulnerabilities";

/** Sortable fields of advisories; `name` is the artifact name. */
export const advisorySortFields = {
  uid: { column: "uid" },
  advisory_id: { column: "advisory_id" },
  name: { column: "artifact_name" },
  created_at: { column: "create_time" },
  update_time: { column: "update_time" },
  updated_at: { column: "update_time" },
} as const;
