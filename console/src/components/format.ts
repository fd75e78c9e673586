/** Bytes as people read them (1000-based, like registries show image sizes). */
export function formatBytes(value: bigint | number): string {
  let n = Number(value);
  if (!Number.isFinite(n) || n < 0) return "—";
  const units = ["B", "kB", "MB", "GB", "TB"];
  let i = 0;
  while (n >= 1000 && i < units.length - 1) {
    n /= 1000;
    i++;
  }
  return `${n.toFixed(i === 0 || n >= 100 ? 0 : 1)} ${units[i]}`;
}

/** An API timestamp as a short local date and time. */
export function formatTime(iso: string | undefined): string {
  if (!iso) return "—";
  const d = new Date(iso);
  return Number.isNaN(d.getTime())
    ? iso
    : d.toLocaleString("en-GB", { dateStyle: "medium", timeStyle: "short" });
}

/** The short form of a digest: algorithm and 12 hex characters. */
export function shortDigest(digest: string): string {
  const [alg, hex] = digest.split(":");
  return hex ? `${alg}:${hex.slice(0, 12)}` : digest;
}
