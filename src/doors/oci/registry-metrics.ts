import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "prom-client";

/** The registry listener's metrics, in a registry of their own. */
export interface RegistryMetrics {
  registry: Registry;
  /** Counts one finished request. `route` is the OCI route kind, never a repository name. */
  observe(route: string, method: string, status: number, seconds: number): void;
  /** Body bytes a finished response sent. */
  sent(bytes: number): void;
  /** Body bytes an upload or manifest PUT stored. */
  received(bytes: number): void;
}

/** Figures read when /metrics is scraped rather than on every request. */
export interface RegistryGauges {
  /** The PostgreSQL pool's connections, or undefined on SQLite. */
  pool?(): { total: number; idle: number; waiting: number } | undefined;
}

/**
 * `lading_registry_requests_total{route,method,code}`, `lading_registry_request_duration_seconds
 * {route}`, `lading_registry_bytes_{sent,received}_total`, `lading_db_pool_connections{state}`
 * and Node's default process metrics (GC, heap, event loop).
 * Labels carry route kinds and status codes only, so a scrape reveals no tenant's names.
 */
export function createRegistryMetrics(gauges: RegistryGauges): RegistryMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: "lading_registry_requests_total",
    help: "Registry requests answered, by route kind, method and HTTP status.",
    labelNames: ["route", "method", "code"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "lading_registry_request_duration_seconds",
    help: "Time from request to the end of the response, by route kind.",
    labelNames: ["route"] as const,
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60],
    registers: [registry],
  });
  const sent = new Counter({
    name: "lading_registry_bytes_sent_total",
    help: "Body bytes of blobs and manifests sent in completed responses.",
    registers: [registry],
  });
  const received = new Counter({
    name: "lading_registry_bytes_received_total",
    help: "Body bytes of blob chunks and manifests stored.",
    registers: [registry],
  });
  new Gauge({
    name: "lading_db_pool_connections",
    help: "PostgreSQL pool connections by state (total, idle, waiting clients); absent on SQLite.",
    labelNames: ["state"] as const,
    registers: [registry],
    collect() {
      const pool = gauges.pool?.();
      if (!pool) return;
      this.set({ state: "total" }, pool.total);
      this.set({ state: "idle" }, pool.idle);
      this.set({ state: "waiting" }, pool.waiting);
    },
  });
  return {
    registry,
    observe(route, method, status, seconds) {
      requests.inc({ route, method, code: String(status) });
      duration.observe({ route }, seconds);
    },
    sent: (bytes) => sent.inc(bytes),
    received: (bytes) => received.inc(bytes),
  };
}
