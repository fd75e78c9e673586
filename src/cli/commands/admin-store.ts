import type { TokenIssuer } from "../../auth/index.ts";
import type { LadingConfig } from "../../config/index.ts";
import type { MetadataStore } from "../../store/metadata/index.ts";

/** What an admin command gets: the migrated store and a token issuer for it. */
export interface StoreTools {
  /** The migrations this run applied. */
  applied: string[];
  config: LadingConfig;
  /** The API URL the server uses (--api-url, else from --api-listen): Ce-Source of events. */
  apiUrl: string;
  store: MetadataStore;
  tokens: TokenIssuer;
}
