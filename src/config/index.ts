export * from "./config.ts";
export { type ConnectionLimits, defaultConnectionLimits } from "./connection-limits.ts";
