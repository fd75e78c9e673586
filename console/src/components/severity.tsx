import { Severity } from "@gen/lading/registry/v1/vuln_reports_pb.js";

/** Severities from the worst. */
export const severities = [
  Severity.CRITICAL,
  Severity.HIGH,
  Severity.MEDIUM,
  Severity.LOW,
  Severity.NEGLIGIBLE,
  Severity.UNKNOWN,
] as const;

/** The word for a severity. */
export function severityName(s: Severity): string {
  return (
    {
      [Severity.CRITICAL]: "critical",
      [Severity.HIGH]: "high",
      [Severity.MEDIUM]: "medium",
      [Severity.LOW]: "low",
      [Severity.NEGLIGIBLE]: "negligible",
    }[s as number] ?? "unknown"
  );
}

/** A severity badge (colour and word, never colour alone). */
export function SeverityBadge({ severity }: { severity: Severity | string }) {
  const name =
    typeof severity === "string" ? severity.toLowerCase() || "unknown" : severityName(severity);
  return <span className={`badge sev-${name}`}>{name}</span>;
}
