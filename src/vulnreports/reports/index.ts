export * from "./get-vuln-report.ts";
export * from "./list-vuln-counts.ts";
export * from "./report-days.ts";
export * from "./stored-reports.ts";
export * from "./vuln-reports-service.ts";
