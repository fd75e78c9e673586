export * from "./advisories-service.ts";
export * from "./advisory-filters.ts";
export * from "./advisory-message.ts";
export * from "./advisory-search-index.ts";
export * from "./feeds/index.ts";
export {
  type ImportTarget,
  isSourceName,
  type StoredEvent,
  sourceNameRule,
} from "./import/advisory-row.ts";
export * from "./import/detect-format.ts";
export * from "./import/import-feed.ts";
export * from "./import/import-formats.ts";
export * from "./import/import-summary.ts";
export * from "./metadata-view.ts";
export * from "./public-advisories.ts";
export * from "./severity-lookup.ts";
export * from "./vulnerabilities-context.ts";
