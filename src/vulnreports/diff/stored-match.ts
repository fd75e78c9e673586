/**
 * One match of a vulnerability report, in the v1 VulnerabilityMatch shape (reference §3.9),
 * as vuln_reports.matches stores them; only the fields the diff and VEX read.
 */
export interface StoredMatch {
  vulnerability: { id: string; severity: Severity; relatedIds: string[] };
  pkg: { name: string; version: string; purl: string };
  fix: { state: string; versions: string[] };
}

/** The severities, most severe first (reference §3.9 plus NEGLIGIBLE). */
export const severityOrder = [
  "CRITICAL",
  "HIGH",
  "MEDIUM",
  "LOW",
  "NEGLIGIBLE",
  "UNKNOWN",
] as const;

export type Severity = (typeof severityOrder)[number];

/** A severity as stored, upper-cased; anything else is UNKNOWN. */
export function severityOf(text: unknown): Severity {
  const upper = typeof text === "string" ? text.toUpperCase() : "";
  return (severityOrder as readonly string[]).includes(upper) ? (upper as Severity) : "UNKNOWN";
}

/**
 * The matches of a stored report. The column is written by Lading itself, so a malformed
 * entry is skipped rather than failing the whole answer.
 */
export function parseMatches(text: string): StoredMatch[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return [];
  }
  if (!Array.isArray(value)) return [];
  const matches: StoredMatch[] = [];
  for (const entry of value) {
    const vulnerability = record(record(entry).vulnerability);
    const pkg = record(record(entry).pkg);
    const fix = record(record(entry).fix);
    if (typeof vulnerability.id !== "string" || vulnerability.id === "") continue;
    const related = Array.isArray(vulnerability.relatedVulnerabilities)
      ? vulnerability.relatedVulnerabilities.map((r) => record(r).id)
      : [];
    matches.push({
      vulnerability: {
        id: vulnerability.id,
        severity: severityOf(vulnerability.severity),
        relatedIds: related.filter((id): id is string => typeof id === "string" && id !== ""),
      },
      pkg: { name: textOf(pkg.name), version: textOf(pkg.version), purl: textOf(pkg.purl) },
      fix: {
        state: textOf(fix.state),
        versions: Array.isArray(fix.versions)
          ? fix.versions.filter((v): v is string => typeof v === "string")
          : [],
      },
    });
  }
  return matches;
}

function record(value: unknown): Record<string, unknown> {
  return value && typeof value === "object" && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function textOf(value: unknown): string {
  return typeof value === "string" ? value : "";
}
