import { isObject } from "./advisory-yaml-event.ts";
import type { AdvisoryEventRecord, FalsePositiveType } from "./feed-records.ts";

/**
 * VEX justifications back to the advisory false-positive types. The advisory-to-VEX map
 * (formats §1.1) sends three types to `vulnerable_code_not_present`; reading back, the one
 * that says exactly that is chosen.
 */
export const justificationTypes: Readonly<Record<string, FalsePositiveType>> = {
  component_not_present: "component-vulnerability-mismatch",
  vulnerable_code_not_present: "vulnerable-code-not-included-in-package",
  vulnerable_code_not_in_execute_path: "vulnerable-code-not-in-execution-path",
  vulnerable_code_cannot_be_controlled_by_adversary:
    "vulnerable-code-cannot-be-controlled-by-adversary",
  inline_mitigations_already_exist: "inline-mitigations-exist",
};

/** The OpenVEX statuses (spec v0.2.0). */
export const vexStatuses = ["not_affected", "affected", "fixed", "under_investigation"] as const;

/**
 * The advisory event a statement makes for one product, or why it cannot make one. `version`
 * is the product purl's version, which a `fixed` statement needs as the fixed version.
 */
export function vexEvent(
  statement: Record<string, unknown>,
  timestamp: string,
  version: string | undefined,
): { value: AdvisoryEventRecord } | { error: string } {
  const text = (field: string) => {
    const value = statement[field];
    return typeof value === "string" && value !== "" ? value : undefined;
  };
  switch (statement.status) {
    case "under_investigation":
      return { value: { timestamp, type: "detection", detection: { type: "manual" } } };
    case "affected": {
      const event: AdvisoryEventRecord = { timestamp, type: "true-positive-determination" };
      const note = text("action_statement") ?? text("status_notes");
      if (note !== undefined) event.note = note;
      return { value: event };
    }
    case "fixed":
      if (version === undefined) return { error: "a fixed product needs a version in its purl" };
      return { value: { timestamp, type: "fixed", fixedVersion: version } };
    case "not_affected": {
      const justification = statement.justification;
      // Without a justification the spec requires an impact statement: a contested record.
      let type: FalsePositiveType = "vulnerability-record-analysis-contested";
      if (justification !== undefined) {
        if (
          typeof justification !== "string" ||
          !Object.hasOwn(justificationTypes, justification)
        ) {
          return { error: `unknown justification ${JSON.stringify(justification)}` };
        }
        type = justificationTypes[justification];
      }
      const event: AdvisoryEventRecord = {
        timestamp,
        type: "false-positive-determination",
        falsePositiveType: type,
      };
      const note = text("impact_statement") ?? text("status_notes");
      if (note !== undefined) event.note = note;
      return { value: event };
    }
    default:
      return { error: `unknown status ${JSON.stringify(statement.status)}` };
  }
}

/** The product's package URL text: `@id` when it is one, else `identifiers.purl`. */
export function productPurl(product: unknown): string | undefined {
  if (!isObject(product)) return undefined;
  const id = product["@id"];
  if (typeof id === "string" && id.startsWith("pkg:")) return id;
  const purl = isObject(product.identifiers) ? product.identifiers.purl : undefined;
  return typeof purl === "string" ? purl : undefined;
}
