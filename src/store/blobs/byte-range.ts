import { type ByteRange, RangeNotSatisfiableError } from "./blob-store.ts";

/** `range` with its end cut at the blob's end; throws RangeNotSatisfiableError when empty. */
export function clampRange(range: ByteRange, size: number): ByteRange {
  const { start, end } = range;
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start < 0 || end < start) {
    throw new RangeNotSatisfiableError(range, size);
  }
  if (start >= size) throw new RangeNotSatisfiableError(range, size);
  return { start, end: Math.min(end, size - 1) };
}
