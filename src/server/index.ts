export { type ApiHandler, type ApiHandlerOptions, createApiHandler } from "./api-handler.ts";
export { createHttpMetrics, type Door, type HttpMetrics } from "./http-metrics.ts";
export {
  type CloseOptions,
  createListener,
  type Listener,
  type ListenerOptions,
  type TlsOptions,
} from "./listener.ts";
export { createLogger, defaultLogFormat, type LogFormat, type LoggerOptions } from "./logger.ts";
export {
  createPlatformMetrics,
  type DeliveryOutcome,
  type PlatformGauges,
  type PlatformMetrics,
  type PlatformMetricsOptions,
  type ScanOutcome,
} from "./platform-metrics.ts";
export { type ProbeAnswer, probeAnswer } from "./probes.ts";
export { requestIdOf } from "./request-id.ts";
