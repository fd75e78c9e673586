import { create } from "@bufbuild/protobuf";
import { invalidArgument, notFound } from "../../errors/index.ts";
import {
  type ListVulnCountReportsResponse,
  ListVulnCountReportsResponseSchema,
  Severity,
  type VulnCountReport,
  VulnCountReportSchema,
} from "../../gen/lading/registry/v1/vuln_reports_pb.js";
import { resolveRepoPath } from "../../registry/registry-access.ts";
import { isRegistryPath, isTagName, registryDomain } from "../../registry/registry-context.ts";
import { pointingActions, readHistory } from "../../registry/tag-history.ts";
import { type Call, requireAccess, Violations } from "../../rpc/index.ts";
import type { ReportCounts } from "../matching/report-counts.ts";
import { type SeverityName, severities } from "../matching/severity.ts";
import { type ReportDay, reportDays } from "./report-days.ts";
import { imageManifestsOf, type ReportsContext } from "./stored-reports.ts";

/** The request fields of both count methods. */
export interface CountRequest {
  repo: string;
  tag: string;
  from: string;
  to: string;
}

/** Severities in the order the lists show them, most severe first. */
const shown: SeverityName[] = [...severities].reverse();

/** Which VulnCountReport list holds each severity's ids. */
const listField = {
  CRITICAL: "critCveIds",
  HIGH: "highCveIds",
  MEDIUM: "medCveIds",
  LOW: "lowCveIds",
  NEGLIGIBLE: "negligibleCveIds",
  UNKNOWN: "unknownCveIds",
} as const;

/**
 * ListVulnCountReports (and, with `cumulative`, its _cumulative sibling): one report per day
 * of the range for the digest the tag pointed to at the end of that day, from the report
 * generation current at that moment. Days before the tag existed or before the image had a
 * report are left out. Cumulative days carry every id seen on the range's days so far.
 */
export async function listVulnCounts(
  ctx: ReportsContext,
  req: CountRequest,
  call: Call,
  cumulative: boolean,
): Promise<ListVulnCountReportsResponse> {
  const v = new Violations();
  if (!isRegistryPath(req.repo)) v.add("repo", "must be an image name <organisation>/<repo name>");
  if (!isTagName(req.tag)) v.add("tag", "must be a tag name ([A-Za-z0-9_][A-Za-z0-9._-]{0,127})");
  const days = reportDays(req.from, req.to, v);
  if (!v.empty) throw invalidArgument(registryDomain, v.list);
  const { repo } = await resolveRepoPath(ctx.db, req.repo);
  if (!repo) throw notFound(registryDomain, "repo", req.repo);
  await requireAccess(call, {
    see: "repo.list",
    act: "vuln_report.list",
    at: repo.parent_uid,
    domain: registryDomain,
    resourceType: "repo",
    resourceName: req.repo,
  });
  await ctx.termsGate?.require(repo.parent_uid, registryDomain);
  const digestByDay = await tagDigests(ctx, repo.uid, req.tag, days);
  const items: VulnCountReport[] = [];
  const running = new Map<string, SeverityName>();
  const images = new Map<string, string[]>();
  const countsAt = reportReader(ctx, repo.uid, days.at(-1)?.end ?? "");
  for (const [index, day] of days.entries()) {
    const digest = digestByDay[index];
    if (digest === undefined) continue;
    let children = images.get(digest);
    if (!children) {
      children = (await imageManifestsOf(ctx, repo.uid, digest)).digests;
      if (!children.includes(digest)) children = [digest, ...children];
      images.set(digest, children);
    }
    const found = await countsAt(children, day);
    if (!found) continue;
    const worst = cumulative ? running : new Map<string, SeverityName>();
    for (const counts of found.counts) {
      for (const severity of severities) {
        for (const id of counts.ids[severity]) {
          const known = worst.get(id);
          if (known === undefined || rank(severity) > rank(known)) worst.set(id, severity);
        }
      }
    }
    items.push(countReport(req, day, digest, found.size, worst));
  }
  return create(ListVulnCountReportsResponseSchema, { items });
}

const rank = (s: SeverityName) => severities.indexOf(s);

function countReport(
  req: CountRequest,
  day: ReportDay,
  digest: string,
  size: bigint,
  worst: ReadonlyMap<string, SeverityName>,
): VulnCountReport {
  const lists = Object.fromEntries(shown.map((s) => [listField[s], [] as string[]])) as Record<
    (typeof listField)[SeverityName],
    string[]
  >;
  const ids = [...worst.keys()].sort();
  for (const id of ids) lists[listField[worst.get(id) as SeverityName]].push(id);
  return create(VulnCountReportSchema, {
    repo: req.repo,
    tag: req.tag,
    date: day.date,
    digest,
    sizeBytes: size,
    vulnCounts: shown.map((s) => ({
      severity: Severity[s],
      count: BigInt(lists[listField[s]].length),
    })),
    cveIds: ids,
    ...lists,
  });
}

/**
 * The digest tag `tag` pointed to at the end of each day, from its history: the last record
 * before the first day, then the records up to the end of the last day as the tag-history
 * endpoint reads them (at most its 1,000 records).
 */
async function tagDigests(
  ctx: ReportsContext,
  repoUid: string,
  tag: string,
  days: ReportDay[],
): Promise<(string | undefined)[]> {
  if (days.length === 0) return [];
  const start = `${days[0].date}T00:00:00.000Z`;
  const before = await ctx.db
    .selectFrom("tag_history")
    .select(["digest", "update_time"])
    .where("repo_uid", "=", repoUid)
    .where("tag", "=", tag)
    .where("action", "in", pointingActions)
    .where("update_time", "<", start)
    .orderBy("update_time", "desc")
    .orderBy("seq", "desc")
    .limit(1)
    .execute();
  const during = await readHistory(ctx.db, repoUid, tag, {
    start,
    end: (days.at(-1) as ReportDay).end,
  });
  const records = [
    ...before.map((r) => ({ digest: r.digest, updateTimestamp: r.update_time })),
    ...during,
  ];
  let next = 0;
  let current: string | undefined;
  return days.map((day) => {
    while (next < records.length && records[next].updateTimestamp <= day.end) {
      current = records[next].digest;
      next++;
    }
    return current;
  });
}

/** Per image manifest: its generations (oldest first), their counts once read, its size. */
interface ImageHistory {
  generations: { generation: number; create_time: string }[];
  counts: Map<number, ReportCounts>;
  size: bigint;
}

/**
 * Reads what the days need of each image once: the generations created by the end of the
 * range, and each generation's counts the first time a day uses it.
 */
function reportReader(ctx: ReportsContext, repoUid: string, lastEnd: string) {
  const images = new Map<string, ImageHistory>();
  async function history(digest: string): Promise<ImageHistory> {
    let found = images.get(digest);
    if (found) return found;
    const generations = await ctx.db
      .selectFrom("vuln_reports")
      .select(["generation", "create_time"])
      .where("repo_uid", "=", repoUid)
      .where("digest", "=", digest)
      .where("create_time", "<=", lastEnd)
      .orderBy("generation")
      .execute();
    const scan = await ctx.db
      .selectFrom("image_scans")
      .select("size")
      .where("repo_uid", "=", repoUid)
      .where("digest", "=", digest)
      .executeTakeFirst();
    found = { generations, counts: new Map(), size: BigInt(scan?.size ?? 0) };
    images.set(digest, found);
    return found;
  }

  /**
   * The counts of each of `digests` from the generation current at the end of `day` (the
   * latest created by then), and the size of the first one that has a report; undefined when
   * none had a report yet.
   */
  return async function countsAt(
    digests: string[],
    day: ReportDay,
  ): Promise<{ counts: ReportCounts[]; size: bigint } | undefined> {
    const counts: ReportCounts[] = [];
    let size: bigint | undefined;
    for (const digest of digests) {
      const image = await history(digest);
      const current = image.generations.findLast((g) => g.create_time <= day.end);
      if (!current) continue;
      let read = image.counts.get(current.generation);
      if (!read) {
        const row = await ctx.db
          .selectFrom("vuln_reports")
          .select("counts")
          .where("repo_uid", "=", repoUid)
          .where("digest", "=", digest)
          .where("generation", "=", current.generation)
          .executeTakeFirstOrThrow();
        read = JSON.parse(row.counts) as ReportCounts;
        image.counts.set(current.generation, read);
      }
      counts.push(read);
      size ??= image.size;
    }
    return size === undefined ? undefined : { counts, size };
  };
}
