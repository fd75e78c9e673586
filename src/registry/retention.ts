import { create } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import { type ExpiringTag, ExpiringTagSchema } from "../gen/lading/registry/v2/tag_policies_pb.js";
import type { MetadataSchema, TagPoliciesTable } from "../store/metadata/index.ts";
import { descendantRange, isWithin, rootOf } from "../uidp/index.ts";
import { tagMatches } from "./tag-patterns.ts";
import { policiesFor } from "./tag-policies.ts";

/** Most tags one preview lists and one retention run deletes; the next run takes the rest. */
export const maxRetentionBatch = 1000;

/** Most repos one preview weighs, so an API request's work stays bounded. */
export const maxReposPreviewed = 1000;

/** Most tags of one repo a run weighs; a repo with more is weighed on its newest pushes. */
export const maxTagsWeighedPerRepo = 10_000;

const retentionKinds = ["keep_newest", "not_pushed", "not_pulled"] as const;
const dayMs = 24 * 60 * 60 * 1000;

/** A tag retention would delete now, and what it pointed to when weighed. */
export interface RetentionCandidate {
  uid: string;
  repoUid: string;
  repository: string;
  name: string;
  digest: string;
  /** The tag's update_time when weighed: a tag moved since is left alone. */
  updateTime: string;
  policyUid: string;
  reason: "keep_newest" | "not_pushed" | "not_pulled" | "expire_time";
}

/** The preview (dry run) of retention under a group or repo, as the API answers it. */
export async function previewRetention(
  db: Kysely<MetadataSchema>,
  parent: string,
): Promise<ExpiringTag[]> {
  const found = await findRetentionCandidates(db, parent, new Date(), maxReposPreviewed);
  return found.map((c) =>
    create(ExpiringTagSchema, {
      uid: c.uid,
      repository: c.repository,
      name: c.name,
      digest: c.digest,
      policyUid: c.policyUid,
      reason: c.reason,
    }),
  );
}

/**
 * The tags retention deletes at `at`, under `scope` (a group or repo uid) or everywhere: those
 * whose expire_time has passed, and those a keep_newest, not_pushed or not_pulled policy on the
 * repo or one of its groups lets go; never a tag an immutability rule holds. At most
 * {@link maxRetentionBatch}, ordered by repo then name, from at most `maxRepos` repos.
 */
export async function findRetentionCandidates(
  db: Kysely<MetadataSchema>,
  scope: string | undefined,
  at: Date,
  maxRepos = Number.POSITIVE_INFINITY,
): Promise<RetentionCandidate[]> {
  const repoUids = new Set<string>();
  let expired = db
    .selectFrom("tags")
    .select("parent_uid")
    .distinct()
    .where("expire_time", "is not", null)
    .where("expire_time", "<=", at.toISOString());
  if (scope) expired = expired.where((eb) => withinScope(eb, "parent_uid", scope));
  for (const row of await expired.limit(maxRetentionBatch).execute()) repoUids.add(row.parent_uid);
  let parents = db
    .selectFrom("tag_policies")
    .select("parent_uid")
    .distinct()
    .where("kind", "in", [...retentionKinds]);
  if (scope) parents = parents.where("root_uid", "=", rootOf(scope));
  for (const { parent_uid } of await parents.execute()) {
    if (scope && !isWithin(scope, parent_uid) && !isWithin(parent_uid, scope)) continue;
    const under = scope && isWithin(scope, parent_uid) ? scope : parent_uid;
    let repos = db
      .selectFrom("repos")
      .select("uid")
      .where((eb) => withinScope(eb, "uid", under))
      .orderBy("uid");
    if (Number.isFinite(maxRepos)) repos = repos.limit(maxRepos);
    for (const r of await repos.execute()) repoUids.add(r.uid);
  }
  const candidates: RetentionCandidate[] = [];
  for (const repoUid of [...repoUids].sort().slice(0, maxRepos)) {
    if (candidates.length >= maxRetentionBatch) break;
    candidates.push(...(await weighRepo(db, repoUid, at)));
  }
  return candidates.slice(0, maxRetentionBatch);
}

function withinScope(
  // biome-ignore lint/suspicious/noExplicitAny: Kysely's expression builder of either table
  eb: any,
  column: string,
  scope: string,
) {
  const range = descendantRange(scope);
  return eb.or([
    eb(column, "=", scope),
    eb.and([eb(column, ">", range.low), eb(column, "<", range.high)]),
  ]);
}

async function weighRepo(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  at: Date,
): Promise<RetentionCandidate[]> {
  const policies = await policiesFor(db, repoUid, ["immutable", ...retentionKinds]);
  const repo = await db
    .selectFrom("repos")
    .innerJoin("groups", "groups.uid", "repos.root_uid")
    .select(["repos.name as name", "groups.name as org"])
    .where("repos.uid", "=", repoUid)
    .executeTakeFirst();
  if (!repo) return [];
  const tags = await db
    .selectFrom("tags")
    .select(["uid", "name", "digest", "update_time", "pull_time", "expire_time"])
    .where("parent_uid", "=", repoUid)
    .orderBy("update_time", "desc")
    .orderBy("name")
    .limit(maxTagsWeighedPerRepo)
    .execute();
  const immutable = policies.filter((p) => p.kind === "immutable");
  const gone = new Map<string, RetentionCandidate>();
  const take = (
    tag: (typeof tags)[number],
    policy: TagPoliciesTable | undefined,
    reason: RetentionCandidate["reason"],
  ) => {
    if (gone.has(tag.uid) || immutable.some((p) => tagMatches(p.pattern, tag.name))) return;
    gone.set(tag.uid, {
      uid: tag.uid,
      repoUid,
      repository: `${repo.org}/${repo.name}`,
      name: tag.name,
      digest: tag.digest,
      updateTime: tag.update_time,
      policyUid: policy?.uid ?? "",
      reason,
    });
  };
  const now = at.getTime();
  for (const tag of tags) {
    if (tag.expire_time && Date.parse(tag.expire_time) <= now) take(tag, undefined, "expire_time");
  }
  for (const policy of policies) {
    const matching = tags.filter((t) => tagMatches(policy.pattern, t.name));
    const cutoff = now - Number(policy.days) * dayMs;
    if (policy.kind === "keep_newest") {
      for (const tag of matching.slice(Number(policy.count))) take(tag, policy, "keep_newest");
    } else if (policy.kind === "not_pushed") {
      for (const tag of matching)
        if (Date.parse(tag.update_time) < cutoff) take(tag, policy, "not_pushed");
    } else if (policy.kind === "not_pulled") {
      for (const tag of matching) {
        if (Date.parse(tag.pull_time ?? tag.update_time) < cutoff) take(tag, policy, "not_pulled");
      }
    }
  }
  return [...gone.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
