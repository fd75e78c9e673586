import type { Kysely } from "kysely";
import type { PageTokens } from "../lists/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";

/** What the Advisory domain's service needs. */
export interface AdvisoryContext {
  db: Kysely<MetadataSchema>;
  /** Signs the metadata list's page tokens. */
  tokens: PageTokens;
}

/** The error domain of Advisory API errors. */
export const advisoryDomain = "advisory";

/** Longest id or package name accepted: real ones are short, and these calls need no credentials. */
export const maxIdLength = 256;
