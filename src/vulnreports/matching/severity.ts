import { baseScoreOf } from "../../vulnerabilities/feeds/cvss-score.ts";
import type { SeverityRecord } from "../../vulnerabilities/feeds/feed-records.ts";

/** The severities of a match, lowest first; the v1 enum names. */
export const severities = ["UNKNOWN", "NEGLIGIBLE", "LOW", "MEDIUM", "HIGH", "CRITICAL"] as const;

export type SeverityName = (typeof severities)[number];

/** One CVSS base score, as the v1 Vulnerability.cvss lists it. */
export interface CvssScore {
  score: number;
  /** "2.0", "3.0", "3.1", "4.0". */
  version: string;
}

/** The CVSS version a vector names: `CVSS:3.1/…` → 3.1; a v2 vector has no prefix. */
function cvssVersion(record: SeverityRecord): string | undefined {
  if (record.type === "CVSS_V2") return "2.0";
  if (record.type !== "CVSS_V3" && record.type !== "CVSS_V4") return undefined;
  const prefix = /^CVSS:(\d\.\d)\//.exec(record.score);
  return prefix?.[1] ?? (record.type === "CVSS_V4" ? "4.0" : "3.1");
}

/**
 * The CVSS base scores among `records` (each version once, the first found wins). A record
 * without a stored score (OSV gives vectors only) is scored from its vector.
 */
export function cvssScores(records: readonly SeverityRecord[]): CvssScore[] {
  const out: CvssScore[] = [];
  for (const record of records) {
    const version = cvssVersion(record);
    if (version === undefined || out.some((s) => s.version === version)) continue;
    const score = record.baseScore ?? baseScoreOf(record.type, record.score).value;
    if (score === undefined) continue;
    out.push({ score, version });
  }
  return out;
}

/**
 * The severity of a vulnerability from its scores: the highest CVSS v4 base score when there
 * is one, otherwise the highest v3 score; v2 alone, or nothing, is UNKNOWN. The bands are
 * CVSS's own qualitative scale, with 0 as NEGLIGIBLE.
 */
export function severityOf(scores: readonly CvssScore[]): SeverityName {
  const highest = (major: string) =>
    Math.max(-1, ...scores.filter((s) => s.version.startsWith(major)).map((s) => s.score));
  const v4 = highest("4.");
  const score = v4 >= 0 ? v4 : highest("3.");
  if (score < 0) return "UNKNOWN";
  if (score >= 9) return "CRITICAL";
  if (score >= 7) return "HIGH";
  if (score >= 4) return "MEDIUM";
  if (score > 0) return "LOW";
  return "NEGLIGIBLE";
}
