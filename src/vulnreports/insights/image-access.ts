import { invalidArgument } from "../../errors/index.ts";
import { type RegistryContext, registryDomain, repoResource } from "../../registry/index.ts";
import { type Call, requireAccess, Violations } from "../../rpc/index.ts";
import { isDigest } from "../../store/blobs/index.ts";
import type { ReposTable } from "../../store/metadata/index.ts";

const digestRule = "must be sha256:<64 hex> or sha512:<128 hex> in lowercase";

/**
 * Checks the request fields (a repo uid and digests), then loads the repo for a caller who may
 * read its images and their vulnerability reports: repo.list to see it (NOT_FOUND otherwise),
 * manifest.metadata.list and vuln_reports.list to read them (PERMISSION_DENIED otherwise).
 */
export async function loadReadableRepo(
  ctx: RegistryContext,
  call: Call,
  repoUid: string,
  digests: Record<string, string>,
): Promise<ReposTable> {
  const v = new Violations().uid("repo", repoUid);
  for (const [field, digest] of Object.entries(digests)) {
    if (digest === "") v.add(field, "is required");
    else if (!isDigest(digest)) v.add(field, digestRule);
  }
  if (!v.empty) throw invalidArgument(registryDomain, v.list);
  const repo = await repoResource.load(ctx, call, repoUid, {
    field: "repo",
    act: "manifest.metadata.list",
  });
  await requireAccess(call, {
    see: "repo.list",
    act: "vuln_reports.list",
    at: repo.parent_uid,
    domain: registryDomain,
    resourceType: "repo",
    resourceName: repo.uid,
  });
  await ctx.termsGate?.require(repo.parent_uid, registryDomain);
  return repo;
}
