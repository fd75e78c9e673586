import type { ImportProgress, ImportSummary } from "../vulnerabilities/index.ts";

/** Writes a progress line on a terminal: files done/total, records and records/s. */
export function progressLine(
  stream: NodeJS.WritableStream & { isTTY?: boolean },
  total: number,
): { update(p: ImportProgress): void; done(): void } {
  const started = Date.now();
  let last = 0;
  let shown = false;
  return {
    update(p) {
      if (!stream.isTTY) return;
      const now = Date.now();
      if (now - last < 200 && p.files < total) return;
      last = now;
      const rate = Math.round(p.records / Math.max((now - started) / 1000, 0.001));
      stream.write(`\r\x1b[K${p.files}/${total} files · ${p.records} records · ${rate} records/s`);
      shown = true;
    },
    done() {
      if (shown) stream.write("\r\x1b[K");
    },
  };
}

/** The summary lines of an import, with every kept rejection and its reason. */
export function summaryText(summary: ImportSummary, seconds: number, records: number): string {
  const rate = Math.round(records / Math.max(seconds, 0.001));
  const lines = [
    `created ${summary.created}, updated ${summary.updated}, withdrawn ${summary.withdrawn}, unchanged ${summary.unchanged}, rejected ${summary.rejected} (${records} records in ${seconds.toFixed(1)} s, ${rate} records/s)`,
  ];
  for (const r of summary.rejections) lines.push(`rejected: ${r.file}: ${r.position}: ${r.reason}`);
  if (summary.rejected > summary.rejections.length) {
    lines.push(`… and ${summary.rejected - summary.rejections.length} more rejections`);
  }
  return `${lines.join("\n")}\n`;
}
