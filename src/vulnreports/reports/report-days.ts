import type { Violations } from "../../rpc/index.ts";

/** Most days one count request covers. */
export const maxCountDays = 366;

/** Days a request without `from` covers, ending with `to`. */
export const defaultCountDays = 30;

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/i;
const dayMs = 86_400_000;

/** One UTC day of a count request. */
export interface ReportDay {
  /** YYYY-MM-DD. */
  date: string;
  /** The last instant of the day, as stored times write it (ISO 8601 with milliseconds). */
  end: string;
}

/** The UTC day (as epoch milliseconds of its start) of a date or date-time; undefined if neither. */
function dayOf(text: string): number | undefined {
  const date = DATE.exec(text);
  if (date) {
    const ms = Date.UTC(Number(date[1]), Number(date[2]) - 1, Number(date[3]));
    return new Date(ms).toISOString().startsWith(text) ? ms : undefined;
  }
  if (!DATE_TIME.test(text)) return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : Math.floor(ms / dayMs) * dayMs;
}

/**
 * The days of `from`..`to`, both inclusive, as UTC days; each bound is a date (YYYY-MM-DD) or
 * an RFC 3339 date-time, standing for the day it falls on. Without `to`, today; without
 * `from`, the 30 days ending with `to`. Days after today are left out: no tag has pointed
 * anywhere at their end yet. Problems go to `v` with the field they concern.
 */
export function reportDays(from: string, to: string, v: Violations, now = Date.now()): ReportDay[] {
  const today = Math.floor(now / dayMs) * dayMs;
  const last = to === "" ? today : dayOf(to);
  if (last === undefined) v.add("to", "must be a date (YYYY-MM-DD) or an RFC 3339 date-time");
  const first = from === "" ? (last ?? today) - (defaultCountDays - 1) * dayMs : dayOf(from);
  if (first === undefined) v.add("from", "must be a date (YYYY-MM-DD) or an RFC 3339 date-time");
  if (first === undefined || last === undefined) return [];
  if (first > last) {
    v.add("from", "must not be after to");
    return [];
  }
  if ((last - first) / dayMs + 1 > maxCountDays) {
    v.add("from", `the range may cover at most ${maxCountDays} days`);
    return [];
  }
  const days: ReportDay[] = [];
  for (let day = first; day <= Math.min(last, today); day += dayMs) {
    days.push({
      date: new Date(day).toISOString().slice(0, 10),
      end: new Date(day + dayMs - 1).toISOString(),
    });
  }
  return days;
}
