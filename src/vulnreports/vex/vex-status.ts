import { schemeForPurlType } from "../../versions/index.ts";
import type { AdvisoryEventRecord, FalsePositiveType } from "../../vulnerabilities/index.ts";

/** The status part of an OpenVEX statement (formats §1.4). */
export interface VexStatus {
  status: "not_affected" | "affected" | "fixed" | "under_investigation";
  justification?: string;
  impactStatement?: string;
  actionStatement?: string;
  statusNotes?: string;
}

/** False-positive types to VEX justifications, as formats §1.1 maps them. */
export const justifications: Readonly<Record<FalsePositiveType, string>> = {
  "vulnerability-record-analysis-contested": "vulnerable_code_not_present",
  "component-vulnerability-mismatch": "component_not_present",
  "vulnerable-code-version-not-used": "vulnerable_code_not_present",
  "vulnerable-code-not-included-in-package": "vulnerable_code_not_present",
  "vulnerable-code-not-in-execution-path": "vulnerable_code_not_in_execute_path",
  "vulnerable-code-cannot-be-controlled-by-adversary":
    "vulnerable_code_cannot_be_controlled_by_adversary",
  "inline-mitigations-exist": "inline_mitigations_already_exist",
};

/** The installed package an advisory is read against. */
export interface InstalledPackage {
  name: string;
  version: string;
  /** The purl type, which picks the version rules. */
  ecosystem: string;
}

/**
 * What an advisory's latest event says about an installed package (formats §1.1 status
 * rules): fixed at or below the installed version → fixed; a false positive → not_affected
 * with the mapped justification; fix-not-planned and pending-upstream-fix → affected with an
 * action; analysis-not-planned → under_investigation; detection and true-positive → affected.
 * A fix above the installed version, or one that cannot be compared, is affected: the update
 * is the action.
 */
export function vexStatusOf(latest: AdvisoryEventRecord, installed: InstalledPackage): VexStatus {
  const note = latest.note?.trim() || undefined;
  const withNote = (text: string) => (note ? `${text}: ${note}` : text);
  switch (latest.type) {
    case "fixed": {
      const fixed = latest.fixedVersion ?? "";
      if (fixed !== "" && atLeast(installed, fixed)) return { status: "fixed" };
      return {
        status: "affected",
        actionStatement: `Update ${installed.name} to ${fixed} or later`,
      };
    }
    case "patched":
      if ((latest.patchedVersions ?? []).includes(installed.version)) return { status: "fixed" };
      return {
        status: "affected",
        actionStatement: `Update ${installed.name} to a patched version`,
      };
    case "false-positive-determination": {
      const type = latest.falsePositiveType ?? "vulnerability-record-analysis-contested";
      const status: VexStatus = { status: "not_affected", justification: justifications[type] };
      if (note) status.impactStatement = note;
      return status;
    }
    case "fix-not-planned":
      return { status: "affected", actionStatement: withNote("No fix is planned") };
    case "pending-upstream-fix":
      return { status: "affected", actionStatement: withNote("A fix is pending upstream") };
    case "analysis-not-planned":
      return { status: "under_investigation", statusNotes: withNote("No analysis is planned") };
    default:
      return {
        status: "affected",
        actionStatement: withNote("No fix is available yet; watch for an updated image"),
      };
  }
}

/** True when `installed` is at or above `fixed` under its ecosystem's version rules. */
function atLeast(installed: InstalledPackage, fixed: string): boolean {
  if (installed.version === fixed) return true;
  const scheme = schemeForPurlType(installed.ecosystem || "apk");
  if (scheme.error !== undefined) return false;
  const order = scheme.value.compareText(installed.version, fixed);
  return order.error === undefined && order.value >= 0;
}
