/**
 * NVD CVE API 2.0 response pages (formats §2.2) as vulnerability records. Configurations
 * (CPE matches) are not read: Lading matches packages through advisories, not CPEs.
 */

import { baseScoreOf } from "./cvss-score.ts";
import type {
  FeedInput,
  FeedParser,
  ParsedFeed,
  ReferenceRecord,
  SeverityRecord,
  VulnerabilityRecord,
} from "./feed-records.ts";
import { metadataFeed } from "./feed-result.ts";
import { isCalendarDate, isCveId, utcTimestamp } from "./metadata-checks.ts";

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function list(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

/**
 * NVD reference tags to OSV reference types, strongest first: a link tagged both "Patch" and
 * "Exploit" is a FIX, one tagged "Exploit" and "Third Party Advisory" (a typical WPScan page)
 * an ADVISORY. Links with none of these tags (VDB Entry, Product, Release Notes, …) are WEB.
 */
export const nvdReferenceTypes: readonly [tag: string, type: string][] = [
  ["Patch", "FIX"],
  ["Vendor Advisory", "ADVISORY"],
  ["Third Party Advisory", "ADVISORY"],
  ["Exploit", "EVIDENCE"],
  ["Issue Tracking", "REPORT"],
  ["Mailing List", "DISCUSSION"],
];

function referenceType(tags: unknown): string {
  const given = list(tags);
  return nvdReferenceTypes.find(([tag]) => given.includes(tag))?.[1] ?? "WEB";
}

/** Unique by type and URL: the NVD repeats a link once per source that submitted it. */
function referencesOf(cve: Json): ReferenceRecord[] {
  const seen = new Set<string>();
  const references: ReferenceRecord[] = [];
  for (const ref of list(cve.references)) {
    // A reference without a usable URL is dropped, not the whole CVE.
    if (!isObject(ref) || typeof ref.url !== "string" || ref.url === "") continue;
    const type = referenceType(ref.tags);
    const key = `${type} ${ref.url}`;
    if (seen.has(key)) continue;
    seen.add(key);
    references.push({ type, url: ref.url });
  }
  return references;
}

// Newest first; 3.1 before 3.0 because both are one family (CVSS_V3) and only one is kept.
const metricFamilies: [key: string, type: SeverityRecord["type"]][] = [
  ["cvssMetricV40", "CVSS_V4"],
  ["cvssMetricV31", "CVSS_V3"],
  ["cvssMetricV30", "CVSS_V3"],
  ["cvssMetricV2", "CVSS_V2"],
];

/** One severity per CVSS family, from the NVD's own (Primary) metric when there is one. */
function severitiesOf(cve: Json): SeverityRecord[] {
  const metrics = isObject(cve.metrics) ? cve.metrics : {};
  const severities: SeverityRecord[] = [];
  for (const [key, type] of metricFamilies) {
    if (severities.some((severity) => severity.type === type)) continue;
    const usable = list(metrics[key]).filter(
      (metric): metric is Json & { cvssData: Json & { vectorString: string } } =>
        isObject(metric) &&
        isObject(metric.cvssData) &&
        typeof metric.cvssData.vectorString === "string",
    );
    const chosen = usable.find((metric) => metric.type === "Primary") ?? usable[0];
    if (chosen === undefined) continue;
    const vector = chosen.cvssData.vectorString;
    const severity: SeverityRecord = { type, score: vector };
    const computed = baseScoreOf(type, vector);
    const printed = chosen.cvssData.baseScore;
    if (computed.value !== undefined) severity.baseScore = computed.value;
    else if (typeof printed === "number" && printed >= 0 && printed <= 10)
      severity.baseScore = printed;
    severities.push(severity);
  }
  return severities;
}

/** CWE-n ids only: NVD-CWE-Other and NVD-CWE-noinfo say nothing. */
function cwesOf(cve: Json): string[] {
  const cwes = new Set<string>();
  for (const weakness of list(cve.weaknesses)) {
    if (!isObject(weakness)) continue;
    for (const description of list(weakness.description)) {
      if (
        isObject(description) &&
        typeof description.value === "string" &&
        /^CWE-\d+$/.test(description.value)
      ) {
        cwes.add(description.value);
      }
    }
  }
  return [...cwes];
}

/** The English description, else the first one given. */
function detailsOf(cve: Json): string | undefined {
  const descriptions = list(cve.descriptions).filter(
    (description): description is Json & { value: string } =>
      isObject(description) && typeof description.value === "string",
  );
  return (descriptions.find((description) => description.lang === "en") ?? descriptions[0])?.value;
}

/** One `vulnerabilities[]` entry as a record, or why it cannot be one. */
function nvdRecord(entry: unknown): VulnerabilityRecord | string {
  if (!isObject(entry) || !isObject(entry.cve)) return "no cve object";
  const cve = entry.cve;
  if (!isCveId(cve.id)) return `id ${JSON.stringify(cve.id)} is not a CVE id`;
  const modified = utcTimestamp(cve.lastModified);
  if (modified === undefined)
    return `lastModified ${JSON.stringify(cve.lastModified)} is not a timestamp`;
  const published = cve.published === undefined ? undefined : utcTimestamp(cve.published);
  if (cve.published !== undefined && published === undefined) {
    return `published ${JSON.stringify(cve.published)} is not a timestamp`;
  }
  const record: VulnerabilityRecord = { id: cve.id, modified };
  if (published !== undefined) record.published = published;
  const details = detailsOf(cve);
  if (details !== undefined) record.details = details;
  // Empty lists stay undefined so that they keep what another source stored.
  const references = referencesOf(cve);
  if (references.length > 0) record.references = references;
  const severities = severitiesOf(cve);
  if (severities.length > 0) record.severities = severities;
  const cwes = cwesOf(cve);
  if (cwes.length > 0) record.cwes = cwes;
  if (isCalendarDate(cve.cisaExploitAdd)) {
    record.kev = { dateAdded: cve.cisaExploitAdd };
    if (isCalendarDate(cve.cisaActionDue)) record.kev.dueDate = cve.cisaActionDue;
    if (typeof cve.cisaVulnerabilityName === "string")
      record.kev.vulnerabilityName = cve.cisaVulnerabilityName;
  }
  if (cve.vulnStatus === "Rejected")
    record.withdrawn = { time: modified, reason: "rejected by the NVD" };
  return record;
}

/**
 * Parses one NVD CVE API 2.0 response page, or a JSON array of them (a saved sync). A page
 * whose `format`/`version` are not NVD_CVE/2.0 is refused whole (position `document`, or `[i]`
 * in an array); a bad CVE entry is rejected at `vulnerabilities[j]` (`[i].vulnerabilities[j]`)
 * and the rest still import.
 */
export const parseNvd: FeedParser = (input: FeedInput): ParsedFeed => {
  const { parsed, reject } = metadataFeed(input.file);
  let document: unknown;
  try {
    document = JSON.parse(input.text);
  } catch (err) {
    reject("document", `not JSON: ${(err as Error).message}`);
    return parsed;
  }
  const pages: [prefix: string, page: unknown][] = Array.isArray(document)
    ? document.map((page, i) => [`[${i}]`, page])
    : [["", document]];
  for (const [prefix, page] of pages) {
    if (!isObject(page) || page.format !== "NVD_CVE" || page.version !== "2.0") {
      reject(prefix || "document", "not an NVD CVE API 2.0 page (format NVD_CVE, version 2.0)");
      continue;
    }
    if (!Array.isArray(page.vulnerabilities)) {
      reject(prefix || "document", "the page has no vulnerabilities list");
      continue;
    }
    page.vulnerabilities.forEach((entry: unknown, j: number) => {
      const record = nvdRecord(entry);
      const position = `${prefix ? `${prefix}.` : ""}vulnerabilities[${j}]`;
      if (typeof record === "string") reject(position, record);
      else parsed.vulnerabilities.push(record);
    });
  }
  return parsed;
};
