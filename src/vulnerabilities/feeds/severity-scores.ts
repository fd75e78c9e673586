/**
 * Base scores for severities that carry only a CVSS vector. OSV records (formats §1.3) give
 * `severity[{type, score}]` where `score` is the vector, never a number; the NVD gives both.
 * Every stored severity goes through here, so each CVSS one whose vector is valid has its base
 * score and the CVSS version it was computed under, whatever source it came from.
 */
import { baseScoreOf } from "./cvss-score.ts";
import type { CvssVersion, SeverityRecord } from "./feed-records.ts";

const versionPrefix = /^CVSS:(3\.0|3\.1|4\.0)\//;

/**
 * The CVSS version a severity's vector is written in: `CVSS:3.1/…` → 3.1, `CVSS:4.0/…` → 4.0,
 * and 2.0 for a CVSS_V2 vector, which has no prefix. Undefined for Ubuntu priorities and for a
 * vector whose prefix does not fit its type.
 */
export function cvssVersionOf(record: SeverityRecord): CvssVersion | undefined {
  if (record.type === "CVSS_V2") return record.score.startsWith("CVSS:") ? undefined : "2.0";
  const version = versionPrefix.exec(record.score)?.[1] as CvssVersion | undefined;
  if (record.type === "CVSS_V3") return version?.startsWith("3.") ? version : undefined;
  if (record.type === "CVSS_V4") return version === "4.0" ? version : undefined;
  return undefined;
}

/**
 * The severities with `baseScore` computed from the vector where the source gave none, and
 * `version` set beside every base score. A score the source gave is kept (the NVD's own,
 * already checked against its vector by the parser). A vector that does not parse keeps no
 * score: a wrong number shown is worse than none.
 */
export function withBaseScores(severities: readonly SeverityRecord[]): SeverityRecord[] {
  return severities.map((severity) => {
    const version = cvssVersionOf(severity);
    if (version === undefined) return severity;
    if (severity.baseScore !== undefined) return { ...severity, version };
    const computed = baseScoreOf(severity.type, severity.score).value;
    return computed === undefined ? severity : { ...severity, baseScore: computed, version };
  });
}
