/** RFC 3339 date-time: date, `T` (or space, which RFC 3339 allows), time, and a zone. */
const RFC3339 =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/**
 * A timestamp in the one spelling every record uses: UTC with milliseconds
 * (`2024-05-01T10:00:00.000Z`). Refuses text that is not RFC 3339, so a local time without
 * a zone is never read in the importer's own time zone.
 */
export function normaliseTimestamp(value: unknown): { value: string } | { error: string } {
  if (typeof value !== "string") return { error: "timestamp is not a string" };
  const match = RFC3339.exec(value);
  if (!match) return { error: `timestamp "${value}" is not RFC 3339` };
  const [, , month, day, hour, minute, second] = match;
  const millis = Date.parse(value.replace(" ", "T"));
  // Date.parse rolls 2024-02-30 over to March; comparing fields catches what it accepts.
  if (
    Number.isNaN(millis) ||
    Number(month) > 12 ||
    Number(day) > 31 ||
    Number(hour) > 23 ||
    Number(minute) > 59 ||
    Number(second) > 60
  ) {
    return { error: `timestamp "${value}" is not a valid date and time` };
  }
  const check = new Date(`${value.slice(0, 10)}T00:00:00Z`);
  if (check.toISOString().slice(0, 10) !== value.slice(0, 10)) {
    return { error: `timestamp "${value}" is not a valid date and time` };
  }
  return { value: new Date(millis).toISOString() };
}

/** OSV's "no date" (the Go repository copy): year 1, which no real record carries. */
export function isZeroDate(value: unknown): boolean {
  return typeof value === "string" && value.startsWith("0001-01-01");
}
