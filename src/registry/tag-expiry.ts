/** The manifest annotation that sets a pushed tag's expiry (docs/registry-lifecycle.md). */
export const expiryAnnotation = "dev.lading.expires";

/** Longest expiry accepted: about ten years ahead. */
const maxExpiryMs = 3660 * 24 * 60 * 60 * 1000;

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
const DURATION = /^([1-9]\d{0,5})([hdw])$/;
const unitMs: Record<string, number> = { h: 3600_000, d: 86_400_000, w: 7 * 86_400_000 };

/**
 * Parses an expiry: an RFC 3339 time, or a duration from `from` in hours, days or weeks
 * (`12h`, `30d`, `2w`). Returns the time in the stored form (ISO 8601 UTC, milliseconds).
 */
export function parseExpiry(text: string, from: Date): { value?: string; error?: string } {
  const duration = DURATION.exec(text);
  let ms: number;
  if (duration) {
    ms = from.getTime() + Number(duration[1]) * unitMs[duration[2]];
  } else if (RFC3339.test(text)) {
    ms = Date.parse(text);
  } else {
    return {
      error: "must be an RFC 3339 time (2026-12-01T00:00:00Z) or a duration (12h, 30d, 2w)",
    };
  }
  if (!Number.isFinite(ms)) return { error: "is not a valid time" };
  if (ms - from.getTime() > maxExpiryMs) return { error: "must be at most ten years ahead" };
  return { value: new Date(ms).toISOString() };
}
