/** Longest wait between two attempts. */
export const maxBackoffMs = 3_600_000;

/**
 * The wait before retry `attempts` (1 after the first failure): exponential with full jitter,
 * a uniform draw from [0, min(cap, base·2^(attempts-1))), so many failing deliveries spread out
 * instead of retrying in step.
 */
export function backoffMs(attempts: number, baseMs: number, random = Math.random): number {
  const ceiling = Math.min(maxBackoffMs, baseMs * 2 ** Math.min(attempts - 1, 40));
  return Math.floor(random() * ceiling);
}

/**
 * The wait a `Retry-After` header asks for (seconds or an HTTP date), capped at `maxBackoffMs`;
 * undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (!header) return undefined;
  const seconds = /^\d{1,10}$/.test(header) ? Number(header) * 1000 : undefined;
  const date = seconds === undefined ? Date.parse(header) - nowMs : undefined;
  const wait = seconds ?? date;
  if (wait === undefined || Number.isNaN(wait)) return undefined;
  return Math.min(maxBackoffMs, Math.max(0, wait));
}
