import { buffer } from "node:stream/consumers";
import { readHistory } from "../../registry/index.ts";
import type { RepoPath } from "../../registry/registry-access.ts";
import { requireFreeTier } from "./free-tier.ts";
import { manifestTypes, parseManifest } from "./manifest-json.ts";
import { num, type OciContext, type OciRequest, sendJsonBody } from "./oci-context.ts";
import { ociError } from "./oci-error.ts";

/** Largest page of tags or repositories; a bigger `n` is cut to it (with `Link`). */
export const maxPage = 1000;

function pageSize(query: URLSearchParams): number {
  const n = query.get("n");
  if (n === null) return maxPage;
  if (!/^\d{1,9}$/.test(n)) {
    throw ociError(400, "PAGINATION_NUMBER_INVALID", "n must be a whole number", { n });
  }
  return Math.min(Number(n), maxPage);
}

function nextLink(path: string, n: number, last: string): Record<string, string> {
  const query = new URLSearchParams({ n: String(n), last });
  return { link: `<${path}?${query}>; rel="next"` };
}

/** GET `/v2/<name>/tags/list` with `n` and `last`, byte-wise order, `Link` when more remain. */
export async function listTags(ctx: OciContext, r: OciRequest, route: { name: string }) {
  const { caller, target } = await ctx.auth.authorize(r.req.headers.authorization, route.name, [
    "pull",
  ]);
  const repo = target.repo;
  if (!repo) throw ociError(404, "NAME_UNKNOWN", `repository ${route.name} is not known`);
  const n = pageSize(r.query);
  const last = r.query.get("last");
  let query = ctx.db.selectFrom("tags").select("name").where("parent_uid", "=", repo.uid);
  if (last) query = query.where("name", ">", last);
  if (caller.freeTierOnly(target)) query = query.where("name", "in", ["", ...ctx.freeTierTags]);
  const rows = await query
    .orderBy("name")
    .limit(n + 1)
    .execute();
  const tags = rows.slice(0, n).map((row) => row.name);
  const more = n > 0 && rows.length > n;
  const headers = more ? nextLink(`/v2/${route.name}/tags/list`, n, tags[tags.length - 1]) : {};
  sendJsonBody(r.res, 200, { name: route.name, tags }, headers, r.method === "HEAD");
}

/** GET `/v2/_catalog`: the repositories the caller may pull, with `n`, `last` and `Link`. */
export async function listCatalog(ctx: OciContext, r: OciRequest) {
  const caller = await ctx.auth.identify(r.req.headers.authorization, "registry:catalog:*");
  const n = pageSize(r.query);
  const last = r.query.get("last") ?? "";
  const rows = await ctx.db
    .selectFrom("repos")
    .innerJoin("groups", "groups.uid", "repos.root_uid")
    .selectAll("repos")
    .select("groups.name as org_name")
    .execute();
  const names = rows
    .map((row) => {
      const { org_name: orgName, ...repo } = row;
      const target: RepoPath = {
        path: `${orgName}/${repo.name}`,
        orgName,
        repoName: repo.name,
        orgUid: repo.root_uid,
        repo,
      };
      // A Lading token's free-tier pull covers every public repo; listing them all would say
      // more than an anonymous caller learns, so the catalog shows what grants reach.
      const listed = caller.scoped || !caller.freeTierOnly(target);
      return listed && caller.actions(target).has("pull") ? target.path : undefined;
    })
    .filter((name): name is string => name !== undefined && name > last)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const page = names.slice(0, n);
  const headers =
    n > 0 && names.length > n ? nextLink("/v2/_catalog", n, page[page.length - 1]) : {};
  sendJsonBody(r.res, 200, { repositories: page }, headers);
}

/** GET `/v2/<name>/referrers/<digest>`: an image index of the manifests whose subject it is. */
export async function listReferrers(
  ctx: OciContext,
  r: OciRequest,
  route: { name: string; digest: string },
) {
  const { caller, target } = await ctx.auth.authorize(r.req.headers.authorization, route.name, [
    "pull",
  ]);
  const repo = target.repo;
  if (!repo) throw ociError(404, "NAME_UNKNOWN", `repository ${route.name} is not known`);
  await requireFreeTier(ctx, caller, { ...target, repo }, () => false);
  const artifactType = r.query.get("artifactType");
  let query = ctx.db
    .selectFrom("manifests")
    .select(["digest", "media_type", "artifact_type", "size"])
    .where("repo_uid", "=", repo.uid)
    .where("subject_digest", "=", route.digest);
  if (artifactType !== null) query = query.where("artifact_type", "=", artifactType);
  if (!ctx.generatedSbomReferrers) {
    // Lading's own SBOM is not something the client pushed: listing it would change what a
    // client reads back (docs/decisions.md, "Generated SBOMs and the referrers API").
    query = query.where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom("image_sboms")
            .select("image_sboms.sbom_digest")
            .whereRef("image_sboms.repo_uid", "=", "manifests.repo_uid")
            .whereRef("image_sboms.image_digest", "=", "manifests.subject_digest")
            .whereRef("image_sboms.sbom_digest", "=", "manifests.digest")
            .where("image_sboms.source", "=", "generated"),
        ),
      ),
    );
  }
  const rows = await query.orderBy("digest").execute();
  const manifests = [];
  for (const row of rows) {
    const parsed = parseManifest(await buffer(await ctx.blobs.get(row.digest)), row.media_type);
    manifests.push({
      mediaType: row.media_type,
      digest: row.digest,
      size: num(row.size),
      ...(row.artifact_type ? { artifactType: row.artifact_type } : {}),
      ...(parsed.annotations ? { annotations: parsed.annotations } : {}),
    });
  }
  const headers: Record<string, string> = { "content-type": manifestTypes.ociIndex };
  if (artifactType !== null) headers["oci-filters-applied"] = "artifactType";
  const body = { schemaVersion: 2, mediaType: manifestTypes.ociIndex, manifests };
  sendJsonBody(r.res, 200, body, headers);
}

const timestampPattern =
  /^\d{4}-\d{2}-\d{2}(?:[Tt ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:[Zz]|[+-]\d{2}:\d{2}))?$/;

/**
 * An ISO 8601 / RFC 3339 timestamp (a date alone means its midnight UTC) in the stored form
 * (UTC, milliseconds); 400 naming the parameter otherwise.
 */
export function parseTimestamp(name: string, value: string | null): string | undefined {
  if (value === null) return undefined;
  const time = timestampPattern.test(value) ? Date.parse(value.replace(" ", "T")) : Number.NaN;
  if (Number.isNaN(time)) {
    throw ociError(
      400,
      "UNSUPPORTED",
      `${name} must be an ISO 8601 timestamp such as 2026-01-01T00:00:00Z, got "${value.slice(0, 64)}"`,
      { parameter: name, value: value.slice(0, 64) },
    );
  }
  return new Date(time).toISOString();
}

/**
 * GET `/v2/<name>/<vendor>/history/<tag>[?start&end]`: oldest first, at most 1000 records, both
 * bounds inclusive. A deleted tag keeps its history; a tag that never existed is 404.
 */
export async function tagHistory(
  ctx: OciContext,
  r: OciRequest,
  route: { name: string; tag: string },
) {
  const start = parseTimestamp("start", r.query.get("start"));
  const end = parseTimestamp("end", r.query.get("end"));
  if (start && end && start > end) {
    throw ociError(400, "UNSUPPORTED", "start must not be after end", { start, end });
  }
  const { caller, target } = await ctx.auth.authorize(r.req.headers.authorization, route.name, [
    "pull",
  ]);
  const repo = target.repo;
  if (!repo) throw ociError(404, "NAME_UNKNOWN", `repository ${route.name} is not known`);
  await requireFreeTier(ctx, caller, { ...target, repo }, () =>
    ctx.freeTierTags.includes(route.tag),
  );
  const known = await ctx.db
    .selectFrom("tag_history")
    .select("seq")
    .where("repo_uid", "=", repo.uid)
    .where("tag", "=", route.tag)
    .limit(1)
    .executeTakeFirst();
  if (!known) {
    throw ociError(404, "MANIFEST_UNKNOWN", `tag ${route.tag} has never existed`, {
      tag: route.tag,
    });
  }
  const history = await readHistory(ctx.db, repo.uid, route.tag, { start, end });
  sendJsonBody(r.res, 200, { history });
}
