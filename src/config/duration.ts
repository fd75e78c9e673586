const UNITS: Readonly<Record<string, number>> = {
  ms: 1,
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
};

/**
 * Parses a duration such as `500ms`, `20s`, `2m`, `1m30s` or `7d` into milliseconds. A bare number is
 * refused: whether `30` means seconds or milliseconds is exactly the mistake to avoid.
 */
export function parseDurationMs(text: string): { value?: number; error?: string } {
  const parts = [...text.matchAll(/(\d+)(ms|s|m|h|d)/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) {
    return { error: `"${text}" is not a duration such as 500ms, 20s, 2m, 1m30s or 7d` };
  }
  const value = parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNITS[unit], 0);
  return value > 0 ? { value } : { error: "a duration must be longer than zero" };
}
