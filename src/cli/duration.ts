const UNITS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86400 };

/** Parses a duration such as `90s`, `15m`, `1h`, `720h` or `1h30m` into seconds. */
export function parseDuration(text: string): { value?: number; error?: string } {
  const parts = [...text.matchAll(/(\d+)([smhd])/g)];
  if (parts.length === 0 || parts.map((p) => p[0]).join("") !== text) {
    return { error: `"${text}" is not a duration such as 90s, 15m, 1h or 1h30m` };
  }
  const value = parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNITS[unit], 0);
  return value > 0 ? { value } : { error: "a duration must be longer than zero" };
}
