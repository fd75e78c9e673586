/**
 * Field checks the vulnerability-metadata parsers (NVD, KEV, EPSS) share: CVE ids, calendar
 * dates and the NVD's zone-less timestamps.
 */

const CVE_ID = /^CVE-\d{4}-\d{4,19}$/;
const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})?$/;

/** True for a CVE id: CVE-YYYY-NNNN with at least four digits after the year. */
export function isCveId(value: unknown): value is string {
  return typeof value === "string" && CVE_ID.test(value);
}

/** True for a real calendar date written YYYY-MM-DD (2025-02-30 is not one). */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== "string") return false;
  const match = CALENDAR_DATE.exec(value);
  if (!match) return false;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(year, month - 1, day));
  return (
    date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day
  );
}

/**
 * An RFC 3339 timestamp as UTC with milliseconds (2022-07-11T13:15:08.503Z), or undefined when
 * the value is not one. The NVD writes its times without a zone; they are UTC, so a missing
 * zone is read as Z.
 */
export function utcTimestamp(value: unknown): string | undefined {
  if (typeof value !== "string" || !TIMESTAMP.test(value)) return undefined;
  const zoned = /(?:Z|[+-]\d{2}:\d{2})$/.test(value) ? value : `${value}Z`;
  const time = Date.parse(zoned);
  if (Number.isNaN(time)) return undefined;
  const iso = new Date(time).toISOString();
  // Date.parse rolls 2023-02-30 over into March; a date that moved was not a real one.
  return iso.slice(0, 10) === zoned.slice(0, 10) || /[+-]\d{2}:\d{2}$/.test(zoned)
    ? iso
    : undefined;
}
