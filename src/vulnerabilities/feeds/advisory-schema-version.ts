/** A schema-version as MODEL.REVISION.ADDITION numbers. */
export type SchemaVersion = readonly [number, number, number];

/** The schema-versions this Lading reads, as documents spell them. */
export const readableSchemaVersions = ["2", "2.0.1", "2.0.2"] as const;

const NEWEST: SchemaVersion = [2, 0, 2];
const MODEL = 2;

/** The first schema-version with pending-upstream-fix events. */
export const pendingUpstreamFixSince: SchemaVersion = [2, 0, 1];
/** The first schema-version with scan/v1 detections. */
export const scanDetectionSince: SchemaVersion = [2, 0, 2];

/**
 * Reads a document's `schema-version` (formats §1.1). A newer version may carry fields whose
 * meaning this code cannot know, and an older MODEL is a different document shape, so both
 * are refused rather than half-read. YAML turns `2` into a number and `2.1` into a float,
 * hence numbers are accepted too.
 */
export function readSchemaVersion(value: unknown): { value: SchemaVersion } | { error: string } {
  if (value === undefined || value === null) return { error: "schema-version is missing" };
  const text = typeof value === "number" ? String(value) : value;
  if (typeof text !== "string" || !/^\d+(\.\d+){0,2}$/.test(text)) {
    return { error: `schema-version ${JSON.stringify(value)} is not MODEL.REVISION.ADDITION` };
  }
  const parts = text.split(".").map(Number);
  const version: SchemaVersion = [parts[0], parts[1] ?? 0, parts[2] ?? 0];
  const readable = readableSchemaVersions.join(", ");
  if (compareSchemaVersions(version, NEWEST) > 0) {
    return { error: `schema-version ${text} is newer than this Lading reads (${readable})` };
  }
  if (version[0] < MODEL) {
    return {
      error: `schema-version ${text} is an older model than this Lading reads (${readable})`,
    };
  }
  return { value: version };
}

/** Orders two schema-versions. */
export function compareSchemaVersions(a: SchemaVersion, b: SchemaVersion): number {
  return a[0] - b[0] || a[1] - b[1] || a[2] - b[2];
}

/** The spelling documents use: trailing zeros dropped (`2`, `2.0.1`). */
export function formatSchemaVersion(version: SchemaVersion): string {
  const parts = [...version];
  while (parts.length > 1 && parts[parts.length - 1] === 0) parts.pop();
  return parts.join(".");
}
