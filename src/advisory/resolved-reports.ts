import { create } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import { invalidArgument, notFound } from "../errors/index.ts";
import {
  type ListResolvedVulnsReportsRequest,
  ResolvedVulnSchema,
  type ResolvedVulnsReport,
  ResolvedVulnsReportSchema,
} from "../gen/lading/advisory/v2/security_advisory_pb.js";
import { visibleTo } from "../lists/index.ts";
import { isRegistryPath, isTagName, resolveRepoPath } from "../registry/index.ts";
import { type Call, requireAccess, scopesOf } from "../rpc/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import {
  eventTypeEnum,
  publicAdvisoriesGroupUid,
  severitiesOf,
  splitValues,
} from "../vulnerabilities/index.ts";
import { advisoryDomain } from "./advisory-context.ts";
import { parseDay } from "./report-days.ts";

/** Most image refs one report takes. */
export const maxImageRefs = 50;
/** Longest day range, in days. */
export const maxReportDays = 366;

const dayMs = 86_400_000;

/**
 * Day-by-day reports of the advisories resolved for the packages of some images: for each
 * day of the inclusive range, the advisories whose latest event is fixed or a false positive
 * and happened that day, of those the image's organisation may use and the caller may read,
 * with severities in the view of each advisory's owner. Until images carry package lists, an
 * image's packages are the advisories' artifacts named like its repo's last path segment,
 * exactly or followed by "-" (docs/decisions.md).
 */
export async function listResolvedReports(
  db: Kysely<MetadataSchema>,
  req: ListResolvedVulnsReportsRequest,
  call: Call,
): Promise<ResolvedVulnsReport[]> {
  const refs = splitValues(req.imageRefs);
  const violations = [];
  if (refs.length === 0) violations.push({ field: "image_refs", description: "is required" });
  if (refs.length > maxImageRefs)
    violations.push({ field: "image_refs", description: `takes at most ${maxImageRefs} refs` });
  const parsedRefs = refs.map(parseImageRef);
  const bad = parsedRefs.find((r) => r.error);
  if (bad?.error) violations.push({ field: "image_refs", description: bad.error });
  const start = parseDay(req.startTime);
  const end = parseDay(req.endTime);
  if (start.error) violations.push({ field: "start_time", description: start.error });
  if (end.error) violations.push({ field: "end_time", description: end.error });
  const startMs = start.value ?? 0;
  const endMs = end.value ?? 0;
  if (start.value !== undefined && end.value !== undefined) {
    if (endMs < startMs)
      violations.push({ field: "end_time", description: "must not be before start_time" });
    else if ((endMs - startMs) / dayMs + 1 > maxReportDays)
      violations.push({
        field: "end_time",
        description: `must be at most ${maxReportDays} days after start_time`,
      });
  }
  if (violations.length > 0) throw invalidArgument(advisoryDomain, violations);

  /** The packages of the images, by the organisation that holds them. */
  const packagesByOrg = new Map<string, Set<string>>();
  for (const ref of parsedRefs) {
    const { repo: path, tag } = ref.value ?? { repo: "", tag: "" };
    const found = await resolveRepoPath(db, path);
    const repo = found.repo;
    const check = { domain: advisoryDomain, resourceType: "repo", resourceName: path };
    if (!repo) throw notFound(advisoryDomain, "repo", path);
    for (const see of ["repo.list", "tag.list", "manifest.metadata.list"]) {
      await requireAccess(call, { ...check, see, at: repo.parent_uid });
    }
    const tagRow = await db
      .selectFrom("tags")
      .select("uid")
      .where("parent_uid", "=", repo.uid)
      .where("name", "=", tag)
      .executeTakeFirst();
    if (!tagRow) throw notFound(advisoryDomain, "tag", `${path}:${tag}`);
    const packages = packagesByOrg.get(repo.root_uid) ?? new Set<string>();
    packages.add(repo.name.slice(repo.name.lastIndexOf("/") + 1));
    packagesByOrg.set(repo.root_uid, packages);
  }

  // An image's advisories are those its organisation may use (the public ones and its own),
  // as for its vulnerability report, and of those only what the caller may read.
  const scopes = [...(await scopesOf(call, "advisories.list")), publicAdvisoriesGroupUid];
  const rows = await db
    .selectFrom("advisories")
    .select([
      "advisory_id",
      "aliases",
      "artifact_name",
      "latest_event_type",
      "latest_event_time",
      "parent_uid",
    ])
    .where("latest_event_type", "in", ["fixed", "false-positive-determination"])
    .where("latest_event_time", ">=", new Date(startMs).toISOString())
    .where("latest_event_time", "<", new Date(endMs + dayMs).toISOString())
    .where("withdrawn_time", "is", null)
    .where((eb) =>
      eb.or(
        [...packagesByOrg].map(([org, packages]) =>
          eb.and([
            eb.or([
              eb("parent_uid", "=", publicAdvisoriesGroupUid),
              eb("parent_uid", "=", org),
              eb.and([eb("parent_uid", ">", `${org}/`), eb("parent_uid", "<", `${org}0`)]),
            ]),
            eb.or(
              [...packages].flatMap((p) => [
                eb("artifact_name", "=", p),
                eb.and([eb("artifact_name", ">", `${p}-`), eb("artifact_name", "<", `${p}.`)]),
              ]),
            ),
          ]),
        ),
      ),
    )
    .where((eb) => visibleTo(eb, { scopes }))
    .orderBy("latest_event_time")
    .orderBy("advisory_id")
    .execute();
  const severities = await severitiesOf(
    db,
    rows.map((r) => ({ aliases: JSON.parse(r.aliases) as string[], parentUid: r.parent_uid })),
  );
  const reports: ResolvedVulnsReport[] = [];
  const byDay = new Map<string, ResolvedVulnsReport>();
  for (let t = startMs; t <= endMs; t += dayMs) {
    const date = new Date(t).toISOString().slice(0, 10);
    const report = create(ResolvedVulnsReportSchema, { date });
    reports.push(report);
    byDay.set(date, report);
  }
  rows.forEach((row, i) => {
    byDay.get(row.latest_event_time.slice(0, 10))?.resolvedVulns.push(
      create(ResolvedVulnSchema, {
        id: row.advisory_id,
        aliases: JSON.parse(row.aliases) as string[],
        cvssSeverities: severities[i].filter((s) => s.type !== 4),
        artifactName: row.artifact_name,
        resolution: eventTypeEnum(row.latest_event_type),
      }),
    );
  });
  return reports;
}

/** `<org>/<repo>[:<tag>]`, the tag defaulting to latest. */
function parseImageRef(text: string): { value?: { repo: string; tag: string }; error?: string } {
  const colon = text.lastIndexOf(":");
  const slash = text.lastIndexOf("/");
  const [repo, tag] =
    colon > slash ? [text.slice(0, colon), text.slice(colon + 1)] : [text, "latest"];
  if (!isRegistryPath(repo))
    return { error: `${JSON.stringify(text)} is not <org>/<repo>[:<tag>]` };
  if (!isTagName(tag)) return { error: `${JSON.stringify(text)} has an invalid tag` };
  return { value: { repo, tag } };
}
