export * from "./record-event.ts";
