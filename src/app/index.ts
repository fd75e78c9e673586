export * from "./advisory-import-events.ts";
export * from "./bootstrap.ts";
export * from "./iam-events.ts";
export * from "./lading.ts";
export * from "./library-import.ts";
