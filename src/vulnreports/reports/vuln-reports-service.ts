import type { VulnReportHandlers } from "../../registry/eol-tags-service.ts";
import { getVulnReport } from "./get-vuln-report.ts";
import { listVulnCounts } from "./list-vuln-counts.ts";
import type { ReportsContext } from "./stored-reports.ts";

/**
 * The v1 report methods of RegistryService: GetVulnReport and the daily counts, plain and
 * cumulative. The registry binds them with ListEolTags (one service, one proto file).
 */
export function createVulnReportHandlers(ctx: ReportsContext): VulnReportHandlers {
  return {
    getVulnReport: (req, call) => getVulnReport(ctx, req, call),
    listVulnCountReports: (req, call) => listVulnCounts(ctx, req, call, false),
    listVulnCountReportsCumulative: (req, call) => listVulnCounts(ctx, req, call, true),
  };
}
