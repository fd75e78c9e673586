export * from "./advisory-context.ts";
export * from "./advisory-documents.ts";
export * from "./resolved-reports.ts";
export * from "./security-advisory-service.ts";
export * from "./vulnerability-metadata.ts";
