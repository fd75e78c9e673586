/**
 * The CISA Known Exploited Vulnerabilities catalog (formats §2.4) as vulnerability records
 * carrying only `kev` and `cwes`.
 */

import type { FeedInput, FeedParser, ParsedFeed, VulnerabilityRecord } from "./feed-records.ts";
import { metadataFeed } from "./feed-result.ts";
import { isCalendarDate, isCveId } from "./metadata-checks.ts";

const CWE = /^CWE-\d+$/;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function optionalText(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value.trim() : undefined;
}

/** One catalog entry as a record, or why it cannot be one. */
function kevRecord(entry: unknown): VulnerabilityRecord | string {
  if (!isObject(entry)) return "not an object";
  if (!isCveId(entry.cveID)) return `cveID ${JSON.stringify(entry.cveID)} is not a CVE id`;
  if (!isCalendarDate(entry.dateAdded))
    return `dateAdded ${JSON.stringify(entry.dateAdded)} is not a YYYY-MM-DD date`;
  if (entry.dueDate !== undefined && entry.dueDate !== "" && !isCalendarDate(entry.dueDate)) {
    return `dueDate ${JSON.stringify(entry.dueDate)} is not a YYYY-MM-DD date`;
  }
  if (entry.cwes !== undefined && !Array.isArray(entry.cwes)) return "cwes is not a list";
  const kev: NonNullable<VulnerabilityRecord["kev"]> = { dateAdded: entry.dateAdded };
  if (isCalendarDate(entry.dueDate)) kev.dueDate = entry.dueDate;
  const ransomware = optionalText(entry.knownRansomwareCampaignUse);
  if (ransomware !== undefined) kev.knownRansomwareCampaignUse = ransomware;
  const name = optionalText(entry.vulnerabilityName);
  if (name !== undefined) kev.vulnerabilityName = name;
  const record: VulnerabilityRecord = { id: entry.cveID, kev };
  // Only real CWE ids; an empty list is left undefined so it does not wipe the NVD's.
  const cwes = [
    ...new Set(
      (entry.cwes ?? []).filter((cwe: unknown) => typeof cwe === "string" && CWE.test(cwe)),
    ),
  ];
  if (cwes.length > 0) record.cwes = cwes as string[];
  return record;
}

/**
 * Parses one KEV catalog. Each entry becomes `{id, kev, cwes}`; an entry with a bad CVE id or
 * date is rejected at `vulnerabilities[i]` and the rest still import. The catalog's `count` is
 * the full catalog's, not the length of the list (mirrors and excerpts cut it), so it is not
 * checked.
 */
export const parseKev: FeedParser = (input: FeedInput): ParsedFeed => {
  const { parsed, reject } = metadataFeed(input.file);
  let catalog: unknown;
  try {
    catalog = JSON.parse(input.text);
  } catch (err) {
    reject("document", `not JSON: ${(err as Error).message}`);
    return parsed;
  }
  if (!isObject(catalog) || !Array.isArray(catalog.vulnerabilities)) {
    reject("document", "not a KEV catalog: no vulnerabilities list");
    return parsed;
  }
  catalog.vulnerabilities.forEach((entry: unknown, i: number) => {
    const record = kevRecord(entry);
    if (typeof record === "string") reject(`vulnerabilities[${i}]`, record);
    else parsed.vulnerabilities.push(record);
  });
  return parsed;
};
