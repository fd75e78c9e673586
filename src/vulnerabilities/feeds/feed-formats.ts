import { parseAdvisoryYaml } from "./advisory-yaml-parser.ts";
import type { FeedParser } from "./feed-records.ts";
import { parseOpenVex } from "./openvex-parser.ts";
import { parseOsv } from "./osv-parser.ts";

/** The feed formats Lading imports, by the name an import source gives as its format. */
export type FeedFormat = "advisories" | "osv" | "openvex";

/** Each format's parser. */
export const feedParsers: Readonly<Record<FeedFormat, FeedParser>> = Object.freeze({
  advisories: parseAdvisoryYaml,
  osv: parseOsv,
  openvex: parseOpenVex,
});
