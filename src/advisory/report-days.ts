const DAY = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * The UTC midnight (ms) of a day given as YYYY-MM-DD, or of the UTC day of an RFC 3339 time.
 */
export function parseDay(text: string): { value?: number; error?: string } {
  if (text === "") return { error: "is required (YYYY-MM-DD)" };
  const day = DAY.exec(text);
  const ms = day ? Date.UTC(Number(day[1]), Number(day[2]) - 1, Number(day[3])) : Date.parse(text);
  if (!Number.isFinite(ms) || (day && new Date(ms).toISOString().slice(0, 10) !== text)) {
    return { error: "must be a day (YYYY-MM-DD) or an RFC 3339 time" };
  }
  if (!day && !/^\d{4}-\d{2}-\d{2}T/.test(text)) {
    return { error: "must be a day (YYYY-MM-DD) or an RFC 3339 time" };
  }
  return { value: Math.floor(ms / 86_400_000) * 86_400_000 };
}
