import { apkScheme } from "../../versions/index.ts";
import {
  compareSchemaVersions,
  formatSchemaVersion,
  pendingUpstreamFixSince,
  type SchemaVersion,
  scanDetectionSince,
} from "./advisory-schema-version.ts";
import {
  type AdvisoryEventRecord,
  type AdvisoryEventType,
  advisoryEventTypes,
  type DetectionRecord,
  type FalsePositiveType,
  falsePositiveTypes,
} from "./feed-records.ts";
import { normaliseTimestamp } from "./feed-timestamp.ts";

/**
 * The event types of the YAML documents. `patched` exists only in the server-side API
 * (formats §1.1 "Newer, server-side fields"), so a document carrying it is refused.
 */
const YAML_EVENT_TYPES: readonly string[] = advisoryEventTypes.filter((t) => t !== "patched");

/** scan/v1 data keys and the record fields they fill (`componentID` is the one rename). */
const SCAN_KEYS: [string, keyof DetectionRecord][] = [
  ["subpackageName", "subpackageName"],
  ["componentID", "componentId"],
  ["componentName", "componentName"],
  ["componentVersion", "componentVersion"],
  ["componentType", "componentType"],
  ["componentLocation", "componentLocation"],
  ["scanner", "scanner"],
];

/** nvdapi data keys, which keep their names in the record. */
const NVD_KEYS = ["cpeSearched", "cpeFound"];

/** A clock skew allowance: a timestamp this far ahead of the importer's clock is accepted. */
export const futureTolerance = 5 * 60 * 1000;

type Result<T> = { value: T; error?: undefined } | { value?: undefined; error: string };

/**
 * One `events[]` entry of an advisory YAML document as a record, or why it cannot be one.
 * `now` is the importer's clock in milliseconds; the schema forbids timestamps in the future.
 */
export function readAdvisoryEvent(
  raw: unknown,
  version: SchemaVersion,
  now: number,
): Result<AdvisoryEventRecord> {
  if (!isObject(raw)) return { error: "an event must be a mapping" };
  const timestamp = normaliseTimestamp(raw.timestamp);
  if ("error" in timestamp) return { error: timestamp.error };
  if (Date.parse(timestamp.value) > now + futureTolerance) {
    return { error: `timestamp ${timestamp.value} is in the future` };
  }
  const type = raw.type;
  if (typeof type !== "string") return { error: "event type is missing" };
  if (!YAML_EVENT_TYPES.includes(type)) return { error: `unknown event type "${type}"` };
  const data = raw.data ?? {};
  if (!isObject(data)) return { error: `${type} data must be a mapping` };
  const event: AdvisoryEventRecord = {
    timestamp: timestamp.value,
    type: type as AdvisoryEventType,
  };
  const problem = fillData(event, data, version);
  return problem === undefined ? { value: event } : { error: `${type}: ${problem}` };
}

/** Sets the type's fields on `event`; returns what is wrong with `data`, if anything. */
function fillData(
  event: AdvisoryEventRecord,
  data: Record<string, unknown>,
  version: SchemaVersion,
): string | undefined {
  const note = data.note;
  if (note !== undefined && typeof note !== "string") return "note must be text";
  switch (event.type) {
    case "detection": {
      const detection = readDetection(data, version);
      if ("error" in detection) return detection.error;
      event.detection = detection.value;
      return undefined;
    }
    case "fixed": {
      const fixed = data["fixed-version"];
      if (typeof fixed !== "string" || fixed === "") return "fixed-version is missing";
      // An epoch (`1:2.3-r0`) is allowed by the schema but not by apk's own version grammar.
      if (!apkScheme.isValid(fixed.replace(/^\d+:/, ""))) {
        return `fixed-version "${fixed}" is not an APK version`;
      }
      event.fixedVersion = fixed;
      return undefined;
    }
    case "false-positive-determination": {
      const kind = data.type;
      if (!falsePositiveTypes.includes(kind as FalsePositiveType)) {
        return `type ${JSON.stringify(kind)} is not one of ${falsePositiveTypes.join(", ")}`;
      }
      event.falsePositiveType = kind as FalsePositiveType;
      break;
    }
    case "pending-upstream-fix":
      if (compareSchemaVersions(version, pendingUpstreamFixSince) < 0) {
        return `needs schema-version ${formatSchemaVersion(pendingUpstreamFixSince)} or newer; the document is ${formatSchemaVersion(version)}`;
      }
      if (typeof note !== "string" || note.trim() === "") return "note is required";
      break;
  }
  if (typeof note === "string" && note !== "") event.note = note;
  return undefined;
}

/**
 * A detection's data: `type` names the kind and, as in wolfictl's `Detection{Type, Data}`,
 * the kind's own fields sit one level down under `data` (`data.data`). `manual` has none.
 */
function readDetection(
  data: Record<string, unknown>,
  version: SchemaVersion,
): Result<DetectionRecord> {
  const kind = data.type;
  if (kind === "manual") return { value: { type: "manual" } };
  if (kind !== "nvdapi" && kind !== "scan/v1") {
    return { error: `detection type ${JSON.stringify(kind)} is not manual, nvdapi or scan/v1` };
  }
  if (kind === "scan/v1" && compareSchemaVersions(version, scanDetectionSince) < 0) {
    return {
      error: `scan/v1 needs schema-version ${formatSchemaVersion(scanDetectionSince)} or newer; the document is ${formatSchemaVersion(version)}`,
    };
  }
  const fields = kind === "nvdapi" ? NVD_KEYS : SCAN_KEYS.map(([key]) => key);
  // The flat form (fields beside `type`) is not the document format: refuse it by name.
  if (fields.some((key) => key in data)) {
    return { error: `${kind} detection data belongs under data.data` };
  }
  const inner = data.data ?? {};
  if (!isObject(inner)) return { error: `${kind} detection data.data must be a mapping` };
  if (kind === "nvdapi") {
    const { cpeSearched, cpeFound } = inner;
    if (typeof cpeSearched !== "string" || typeof cpeFound !== "string") {
      return { error: "an nvdapi detection needs cpeSearched and cpeFound" };
    }
    return { value: { type: "nvdapi", cpeSearched, cpeFound } };
  }
  const detection: DetectionRecord = { type: "scan/v1" };
  for (const [key, field] of SCAN_KEYS) {
    const value = inner[key];
    if (value === undefined) continue;
    if (typeof value !== "string") return { error: `scan/v1 ${key} must be text` };
    (detection as unknown as Record<string, string>)[field] = value;
  }
  if (!detection.componentName) return { error: "a scan/v1 detection needs componentName" };
  return { value: detection };
}

/** A plain mapping (not a list, not null). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
