export { markRematch } from "../../vulnerabilities/import/mark-rematch.ts";
export * from "./advisory-verdict.ts";
export * from "./compute-report.ts";
export * from "./matcher.ts";
export * from "./package-target.ts";
export * from "./report-counts.ts";
export * from "./severity.ts";
