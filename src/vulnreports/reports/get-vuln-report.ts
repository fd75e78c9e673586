import { create, fromJson, type JsonValue } from "@bufbuild/protobuf";
import { invalidArgument, notFound } from "../../errors/index.ts";
import {
  type GetVulnReportRequest,
  type VulnerabilityMatch,
  VulnerabilityMatchSchema,
  type VulnReport,
  VulnReportSchema,
} from "../../gen/lading/registry/v1/vuln_reports_pb.js";
import { registryDomain, repoResource } from "../../registry/index.ts";
import { type Call, markImmutable, Violations } from "../../rpc/index.ts";
import { isDigest } from "../../store/blobs/index.ts";
import type { VulnReportsTable } from "../../store/metadata/index.ts";
import { type VulnerabilityMatch as StoredMatch, sortMatches } from "../matching/matcher.ts";
import { ReportCache } from "./report-cache.ts";
import {
  imageManifestsOf,
  latestGenerations,
  type ReportsContext,
  reportRows,
} from "./stored-reports.ts";

const cache = new ReportCache();

/**
 * GetVulnReport: the latest report generation of an image manifest. For an index, the
 * latest reports of its platform manifests merged: every match once per vulnerability and
 * package, the highest generation, and the newest report and database times.
 */
export async function getVulnReport(
  ctx: ReportsContext,
  req: GetVulnReportRequest,
  call: Call,
): Promise<VulnReport> {
  const v = new Violations().uid("repo_id", req.repoId);
  if (!isDigest(req.digest)) {
    v.add("digest", "must be sha256:<64 hex> or sha512:<128 hex> in lowercase");
  }
  if (!v.empty) throw invalidArgument(registryDomain, v.list);
  const repo = await repoResource.load(ctx, call, req.repoId, {
    field: "repo_id",
    act: "vuln_reports.list",
  });
  await ctx.termsGate?.require(repo.parent_uid, registryDomain);
  const name = `${repo.uid}@${req.digest}`;
  let generations = await latestGenerations(ctx.db, repo.uid, [req.digest]);
  if (generations.length === 0) {
    const image = await imageManifestsOf(ctx, repo.uid, req.digest);
    if (!image.exists) throw notFound(registryDomain, "manifest", name);
    const platforms = image.digests.filter((d) => d !== req.digest);
    generations = await latestGenerations(ctx.db, repo.uid, platforms);
  }
  if (generations.length === 0) {
    throw notFound(registryDomain, "vulnerability report", `${name} (not scanned yet)`);
  }
  const key = [name, ...generations.map((g) => `${g.digest}@${g.generation}`)].join("\n");
  const cached = cache.get(key);
  if (cached) return cached;
  const report = markImmutable(
    reportMessage(name, await reportRows(ctx.db, repo.uid, generations)),
  );
  cache.set(key, report);
  return report;
}

function reportMessage(id: string, reports: VulnReportsTable[]): VulnReport {
  const newest = (pick: (r: VulnReportsTable) => string) => reports.map(pick).sort().at(-1) ?? "";
  const raw = reports.length === 1 ? reports[0].matches : JSON.stringify(mergeMatches(reports));
  const matches: VulnerabilityMatch[] = [];
  for (const m of JSON.parse(raw) as StoredMatch[]) {
    matches.push(fromJson(VulnerabilityMatchSchema, m as unknown as JsonValue));
  }
  return create(VulnReportSchema, {
    id,
    lastSeen: newest((r) => r.create_time),
    reportGeneration: BigInt(Math.max(...reports.map((r) => r.generation))),
    scanner: {
      name: "lading",
      version: reports[0].scanner_version,
      vulnerabilityDbLastBuildTime: newest((r) => r.db_time),
    },
    rawVulnReport: Buffer.from(raw, "utf8"),
    vulnerabilityMatches: matches,
  });
}

/** The matches of several reports, each vulnerability-and-package pair once. */
function mergeMatches(reports: VulnReportsTable[]): StoredMatch[] {
  const seen = new Set<string>();
  const out: StoredMatch[] = [];
  for (const report of reports) {
    for (const m of JSON.parse(report.matches) as StoredMatch[]) {
      const key = `${m.vulnerability.id}\n${m.pkg.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(m);
    }
  }
  return sortMatches(out);
}
