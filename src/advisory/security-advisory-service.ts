import { SecurityAdvisoryService } from "../gen/lading/advisory/v2/security_advisory_pb.js";
import { type BoundService, bindService } from "../rpc/index.ts";
import type { AdvisoryContext } from "./advisory-context.ts";
import { listDocuments } from "./advisory-documents.ts";
import { listResolvedReports } from "./resolved-reports.ts";
import { listVulnerabilityMetadata } from "./vulnerability-metadata.ts";

/** The SecurityAdvisoryService: documents and metadata need no credentials (reference §3.5). */
export function createSecurityAdvisoryService(ctx: AdvisoryContext): BoundService {
  const name = SecurityAdvisoryService.typeName;
  return bindService(
    SecurityAdvisoryService,
    {
      async listDocuments(req) {
        return { documents: await listDocuments(ctx.db, req) };
      },
      async listVulnerabilityMetadata(req, call) {
        return listVulnerabilityMetadata(ctx, req, call);
      },
      async listResolvedVulnsReports(req, call) {
        return { resolvedVulnsReports: await listResolvedReports(ctx.db, req, call) };
      },
    },
    new Set([`${name}/ListDocuments`, `${name}/ListVulnerabilityMetadata`]),
  );
}
