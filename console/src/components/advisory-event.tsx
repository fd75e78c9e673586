import {
  type AdvisoryEvent,
  EventTypeSchema,
  type Severity,
  Severity_TypeSchema,
} from "@gen/lading/vulnerabilities/v2/advisories_pb.js";

/** An event type enum value as words: `EVENT_TYPE_FIX_NOT_PLANNED` → "fix not planned". */
export function eventTypeName(value: number): string {
  const name = EventTypeSchema.values.find((v) => v.number === value)?.name ?? "";
  return (
    name
      .replace(/^EVENT_TYPE_/, "")
      .replaceAll("_", " ")
      .toLowerCase() || "unknown"
  );
}

/** A severity score as `CVSS v3 7.5 (AV:N/…)`. */
export function severityText(s: Severity): string {
  const type = (Severity_TypeSchema.values.find((v) => v.number === s.type)?.name ?? "")
    .replace(/^TYPE_/, "")
    .replace("_V", " v");
  return `${type} ${s.baseScore ? s.baseScore.toFixed(1) : ""} ${s.score}`.trim();
}

/** What one advisory event says, in words; notes are text, never markup. */
export function eventSummary(e: AdvisoryEvent): string {
  const t = e.type;
  switch (t.case) {
    case "detection":
      return `Detected (${t.value.type.case ?? "manual"})`;
    case "truePositiveDetermination":
      return `Confirmed${t.value.note ? `: ${t.value.note}` : ""}`;
    case "fixed":
      return `Fixed in ${t.value.fixedVersion}`;
    case "falsePositiveDetermination":
      return `False positive${t.value.note ? `: ${t.value.note}` : ""}`;
    case "analysisNotPlanned":
      return `Analysis not planned${t.value.note ? `: ${t.value.note}` : ""}`;
    case "fixNotPlanned":
      return `Fix not planned${t.value.note ? `: ${t.value.note}` : ""}`;
    case "pendingUpstreamFix":
      return `Pending upstream fix${t.value.note ? `: ${t.value.note}` : ""}`;
    case "patched":
      return `Patched in ${t.value.patchedVersions.join(", ")}${t.value.note ? `: ${t.value.note}` : ""}`;
    default:
      return "Event";
  }
}
