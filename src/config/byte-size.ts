const units: Record<string, number> = { "": 1, b: 1, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 };

/**
 * A size such as `512MiB`, `1GiB` or `1048576` (bytes): a whole number and an optional binary
 * unit (B, KiB, MiB, GiB, any case). Decimal units (MB, GB) are refused rather than guessed.
 */
export function parseByteSize(text: string): { value?: number; error?: string } {
  const match = /^(\d{1,16})\s?([a-z]{0,3})$/i.exec(text.trim());
  const unit = units[match?.[2].toLowerCase() ?? "?"];
  if (!match || unit === undefined) {
    return { error: `"${text}" is not a size: a whole number with B, KiB, MiB or GiB` };
  }
  const value = Number(match[1]) * unit;
  if (value < 1 || !Number.isSafeInteger(value)) return { error: `"${text}" is out of range` };
  return { value };
}
