import type { VulnReport } from "../../gen/lading/registry/v1/vuln_reports_pb.js";

/** Reports kept, and the raw bytes they may hold in all. */
const maxEntries = 64;
const maxBytes = 64 * 1024 * 1024;

/**
 * Built VulnReport messages by repo, digest and generation. A generation never changes once
 * written, so an entry is never stale: a newer generation has another key. Reading and
 * decoding a large report costs far more than answering it, which is what this saves.
 */
export class ReportCache {
  readonly #entries = new Map<string, VulnReport>();
  #bytes = 0;

  get(key: string): VulnReport | undefined {
    const found = this.#entries.get(key);
    if (found) {
      // Most recently used last.
      this.#entries.delete(key);
      this.#entries.set(key, found);
    }
    return found;
  }

  set(key: string, report: VulnReport): void {
    if (report.rawVulnReport.length > maxBytes / 4 || this.#entries.has(key)) return;
    this.#entries.set(key, report);
    this.#bytes += report.rawVulnReport.length;
    for (const [oldest, entry] of this.#entries) {
      if (this.#entries.size <= maxEntries && this.#bytes <= maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= entry.rawVulnReport.length;
    }
  }
}
