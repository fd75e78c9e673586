import { Counter, Gauge, Histogram, Registry } from "prom-client";

/** What a finished delivery attempt left its delivery as (docs/events.md "Delivery"). */
export type DeliveryOutcome = "delivered" | "retry" | "dead";

/** How a scan ended: written, failed for good, or sent back to the queue after a store error. */
export type ScanOutcome = "done" | "failed" | "retry";

/** Figures read from the metadata store when `/metrics` is scraped. */
export interface PlatformGauges {
  /** Open upload sessions. */
  uploadSessions(): Promise<number>;
  /** Images waiting for a scan (pending) and being scanned now. */
  scanQueue(): Promise<{ pending: number; scanning: number }>;
  /** Bytes the stores hold by kind; summed over whole tables, so read through a cache. */
  storageBytes(): Promise<{ blobs: number; manifests: number; libraries: number }>;
}

/** The metrics of the whole process, served on both listeners' `/metrics`. */
export interface PlatformMetrics {
  registry: Registry;
  /** Counts one delivery attempt by what it left the delivery as. */
  delivery(outcome: DeliveryOutcome): void;
  /** Counts one scan; `seconds` is its run time (none for a scan sent back to the queue). */
  scan(outcome: ScanOutcome, seconds?: number): void;
}

export interface PlatformMetricsOptions {
  gauges: PlatformGauges;
  /** How long a storage sum is reused before the next scrape reads it again. Default 60 s. */
  storageMaxAgeMs?: number;
}

/**
 * A registry of its own (several servers in one process, as in tests, must not collide) with
 * `lading_event_deliveries_total{outcome}`, `lading_scans_total{outcome}`,
 * `lading_scan_duration_seconds{outcome}`, `lading_scans_queued{state}`,
 * `lading_storage_bytes{kind}` and `lading_registry_upload_sessions`. Labels carry outcomes and
 * kinds only, never a tenant's names.
 */
export function createPlatformMetrics(options: PlatformMetricsOptions): PlatformMetrics {
  const { gauges } = options;
  const storageMaxAgeMs = options.storageMaxAgeMs ?? 60_000;
  const registry = new Registry();
  const deliveries = new Counter({
    name: "lading_event_deliveries_total",
    help: "Event delivery attempts by what they left the delivery as: delivered, retry (to be sent again), dead (given up).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const scans = new Counter({
    name: "lading_scans_total",
    help: "Image scans by outcome: done, failed (for good), retry (a store error; back to the queue).",
    labelNames: ["outcome"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "lading_scan_duration_seconds",
    help: "Run time of image scans that finished (done or failed).",
    labelNames: ["outcome"] as const,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 900],
    registers: [registry],
  });
  for (const outcome of ["delivered", "retry", "dead"] as const) deliveries.inc({ outcome }, 0);
  for (const outcome of ["done", "failed", "retry"] as const) scans.inc({ outcome }, 0);
  new Gauge({
    name: "lading_scans_queued",
    help: "Images in the scan queue: pending (waiting) and scanning (claimed by a replica).",
    labelNames: ["state"] as const,
    registers: [registry],
    async collect() {
      const queue = await gauges.scanQueue();
      this.set({ state: "pending" }, queue.pending);
      this.set({ state: "scanning" }, queue.scanning);
    },
  });
  let storage: { at: number; value: ReturnType<PlatformGauges["storageBytes"]> } | undefined;
  new Gauge({
    name: "lading_storage_bytes",
    help: "Bytes stored by kind: registry blobs (once each), manifests (per repository), library files. Read at most once a minute.",
    labelNames: ["kind"] as const,
    registers: [registry],
    async collect() {
      // A sum over whole tables is not for every scrape; concurrent scrapes share one read.
      if (!storage || Date.now() - storage.at >= storageMaxAgeMs) {
        storage = { at: Date.now(), value: gauges.storageBytes() };
        storage.value.catch(() => {
          storage = undefined;
        });
      }
      const bytes = await storage.value;
      this.set({ kind: "blobs" }, bytes.blobs);
      this.set({ kind: "manifests" }, bytes.manifests);
      this.set({ kind: "libraries" }, bytes.libraries);
    },
  });
  new Gauge({
    name: "lading_registry_upload_sessions",
    help: "Upload sessions open now.",
    registers: [registry],
    async collect() {
      this.set(await gauges.uploadSessions());
    },
  });
  return {
    registry,
    delivery: (outcome) => deliveries.inc({ outcome }),
    scan(outcome, seconds) {
      scans.inc({ outcome });
      if (seconds !== undefined) duration.observe({ outcome }, seconds);
    },
  };
}
