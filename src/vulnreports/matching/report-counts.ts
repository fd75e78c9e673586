import type { VulnerabilityMatch } from "./matcher.ts";
import { type SeverityName, severities } from "./severity.ts";

/** What vuln_reports.counts holds: distinct vulnerability ids per severity. */
export interface ReportCounts {
  counts: Record<SeverityName, number>;
  /** Sorted, distinct. */
  cveIds: string[];
  ids: Record<SeverityName, string[]>;
}

/**
 * The counts of a report. A vulnerability found in several packages counts once, under the
 * highest severity any of its matches has; "cve" ids are the reported ids, whatever their
 * prefix (a GHSA with no CVE is still counted).
 */
export function reportCounts(matches: readonly VulnerabilityMatch[]): ReportCounts {
  const rank = (s: SeverityName) => severities.indexOf(s);
  const worst = new Map<string, SeverityName>();
  for (const { vulnerability: v } of matches) {
    const known = worst.get(v.id);
    if (known === undefined || rank(v.severity) > rank(known)) worst.set(v.id, v.severity);
  }
  const counts = Object.fromEntries(severities.map((s) => [s, 0])) as Record<SeverityName, number>;
  const ids = Object.fromEntries(severities.map((s) => [s, [] as string[]])) as Record<
    SeverityName,
    string[]
  >;
  const cveIds = [...worst.keys()].sort();
  for (const id of cveIds) {
    const severity = worst.get(id) as SeverityName;
    counts[severity]++;
    ids[severity].push(id);
  }
  return { counts, cveIds, ids };
}
