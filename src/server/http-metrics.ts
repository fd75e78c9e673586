import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** Which part of the server answered a request; a metrics and access-log label. */
export type Door = "rest" | "grpc" | "route" | "probe" | "metrics" | "console" | "none";

/** The HTTP metrics of one API handler, in their own registry. */
export interface HttpMetrics {
  registry: Registry;
  /** Counts one finished request and records its duration. */
  observe(door: Door, method: string, status: number, seconds: number): void;
}

/**
 * A registry (not prom-client's global one, so several handlers in one process, as in tests,
 * do not collide) with the default process metrics, `lading_http_requests_total{door,method,code}`
 * (code: the HTTP status) and `lading_http_request_duration_seconds{door}`.
 */
export function createHttpMetrics(): HttpMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: "lading_http_requests_total",
    help: "HTTP requests answered, by door, method and HTTP status.",
    labelNames: ["door", "method", "code"] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: "lading_http_request_duration_seconds",
    help: "Time from request to the end of the response, by door.",
    labelNames: ["door"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  return {
    registry,
    observe(door, method, status, seconds) {
      requests.inc({ door, method, code: String(status) });
      duration.observe({ door }, seconds);
    },
  };
}
