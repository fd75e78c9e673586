import type { Kysely } from "kysely";
import type { ListEngine } from "../lists/index.ts";
import type { OutboundGuard } from "../outbound/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";

/** What the IAM services share. */
export interface IamContext {
  db: Kysely<MetadataSchema>;
  lists: ListEngine;
  /** Judges the issuers identities and identity providers name, when they are stored. */
  outbound: Pick<OutboundGuard, "destinationProblem">;
}

/** The error domain of IAM errors: iam.lading.dev. */
export const iamDomain = "iam";

/** Sortable fields shared by every IAM resource with a name. */
export const namedSortFields = {
  uid: { column: "uid" },
  name: { column: "name" },
  created_at: { column: "create_time" },
  updated_at: { column: "update_time" },
} as const;
