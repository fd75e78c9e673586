export * from "./config.ts";
export { type ConfigFile, fileKeyOf, readConfigFile } from "./config-file.ts";
export { type ConnectionLimits, defaultConnectionLimits } from "./connection-limits.ts";
export { defaultEventsSettings, type EventsSettings } from "./events-settings.ts";
export { defaultGcSettings, type GcSettings } from "./gc-settings.ts";
export type { OutboundSettings } from "./outbound-settings.ts";
