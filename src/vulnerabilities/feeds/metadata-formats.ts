/** The vulnerability-metadata feed formats (formats §2.2–2.4) by the name the importer uses. */
import { parseEpss } from "./epss-parser.ts";
import type { FeedParser } from "./feed-records.ts";
import { parseKev } from "./kev-parser.ts";
import { parseNvd } from "./nvd-parser.ts";

/** nvd: CVE API 2.0 pages; kev: the CISA KEV catalog; epss: FIRST's daily CSV (un-gzipped). */
export const metadataParsers: Record<"nvd" | "kev" | "epss", FeedParser> = {
  nvd: parseNvd,
  kev: parseKev,
  epss: parseEpss,
};
