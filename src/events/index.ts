export * from "./event-rules.ts";
export * from "./outbox-services.ts";
export * from "./pull-recorder.ts";
export * from "./record-event.ts";
export * from "./record-events.ts";
export * from "./redact.ts";
export * from "./registry-events.ts";
