import { Counter, Gauge, Registry } from "prom-client";
import type { GcReport } from "./gc-report.ts";

/** The collector's metrics, and the storage gauges read when scraped. */
export interface LifecycleMetrics {
  registry: Registry;
  /** Counts a finished collection of this replica. */
  collected(report: GcReport): void;
}

/**
 * `lading_gc_runs_total{state}`, `lading_gc_deleted_total{kind}`, `lading_gc_bytes_reclaimed_total`,
 * `lading_gc_last_duration_seconds`, and when scraped `lading_storage_bytes` (all stored bytes)
 * and `lading_storage_org_bytes{org_uid}`: organisations by uid, never by name.
 */
export function createLifecycleMetrics(usage: {
  total(): Promise<number>;
  perOrg(): Promise<{ orgUid: string; bytes: number }[]>;
}): LifecycleMetrics {
  const registry = new Registry();
  const runs = new Counter({
    name: "lading_gc_runs_total",
    help: "Garbage collections this replica finished, by outcome (done, failed).",
    labelNames: ["state"] as const,
    registers: [registry],
  });
  const deleted = new Counter({
    name: "lading_gc_deleted_total",
    help: "Objects garbage collections deleted, by kind (manifest, link, blob, upload, file).",
    labelNames: ["kind"] as const,
    registers: [registry],
  });
  const reclaimed = new Counter({
    name: "lading_gc_bytes_reclaimed_total",
    help: "Bytes garbage collections deleted from the blob store.",
    registers: [registry],
  });
  const lastDuration = new Gauge({
    name: "lading_gc_last_duration_seconds",
    help: "How long this replica's last garbage collection took.",
    registers: [registry],
  });
  new Gauge({
    name: "lading_storage_bytes",
    help: "Bytes of every distinct blob and manifest the registry stores.",
    registers: [registry],
    async collect() {
      this.set(await usage.total());
    },
  });
  new Gauge({
    name: "lading_storage_org_bytes",
    help: "Bytes an organisation stores, each distinct blob counted once, by organisation uid.",
    labelNames: ["org_uid"] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await usage.perOrg()) this.set({ org_uid: row.orgUid }, row.bytes);
    },
  });
  return {
    registry,
    collected(report) {
      if (report.dryRun) return;
      runs.inc({ state: report.state });
      deleted.inc({ kind: "manifest" }, report.manifestsDeleted);
      deleted.inc({ kind: "link" }, report.linksDeleted);
      deleted.inc({ kind: "blob" }, report.blobsDeleted);
      deleted.inc({ kind: "upload" }, report.uploadsExpired);
      deleted.inc({ kind: "file" }, report.filesSwept);
      reclaimed.inc(report.bytesReclaimed);
      lastDuration.set(report.durationMs / 1000);
    },
  };
}
