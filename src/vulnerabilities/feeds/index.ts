export * from "./advisory-id.ts";
export * from "./feed-records.ts";
