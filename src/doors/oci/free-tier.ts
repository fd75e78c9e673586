import { buffer } from "node:stream/consumers";
import type { RepoPath } from "../../registry/registry-access.ts";
import type { ReposTable } from "../../store/metadata/index.ts";
import { parseManifest } from "./manifest-json.ts";
import type { OciContext } from "./oci-context.ts";
import { ociError } from "./oci-error.ts";
import type { RegistryCaller } from "./registry-auth.ts";

/** What anonymous callers may pull from one public repo. */
export interface FreeTierReach {
  tags: Set<string>;
  manifests: Set<string>;
  blobs: Set<string>;
}

/**
 * The free-tier tags of repo `repoUid` and everything they point to: their manifests, an
 * index's child manifests, and the config and layers of each.
 */
export async function freeTierReach(ctx: OciContext, repoUid: string): Promise<FreeTierReach> {
  const reach: FreeTierReach = { tags: new Set(), manifests: new Set(), blobs: new Set() };
  if (ctx.freeTierTags.length === 0) return reach;
  const tags = await ctx.db
    .selectFrom("tags")
    .select(["name", "digest"])
    .where("parent_uid", "=", repoUid)
    .where("name", "in", [...ctx.freeTierTags])
    .execute();
  const queue = tags.map((t) => t.digest);
  for (const t of tags) reach.tags.add(t.name);
  while (queue.length > 0) {
    const digest = queue.shift() as string;
    if (reach.manifests.has(digest)) continue;
    const row = await ctx.db
      .selectFrom("manifests")
      .select("media_type")
      .where("repo_uid", "=", repoUid)
      .where("digest", "=", digest)
      .executeTakeFirst();
    if (!row) continue;
    reach.manifests.add(digest);
    const bytes = await buffer(await ctx.blobs.get(digest));
    const parsed = parseManifest(bytes, row.media_type);
    for (const b of parsed.blobs) reach.blobs.add(b.digest);
    for (const m of parsed.manifests) queue.push(m.digest);
  }
  return reach;
}

/**
 * For a caller whose pull on `target` (an existing repo) reaches only the free tier, 403 DENIED
 * unless `check` holds for the free-tier reach.
 */
export async function requireFreeTier(
  ctx: OciContext,
  caller: RegistryCaller,
  target: RepoPath & { repo: ReposTable },
  check: (reach: FreeTierReach) => boolean,
): Promise<void> {
  if (!caller.freeTierOnly(target)) return;
  if (check(await freeTierReach(ctx, target.repo.uid))) return;
  throw ociError(
    403,
    "DENIED",
    `without a grant on ${target.orgName}, pulls reach only tags ${ctx.freeTierTags.join(", ")} and what they point to`,
  );
}
