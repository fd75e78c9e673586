import type { Kysely } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";

type Db = Kysely<MetadataSchema>;

/** The times that decide what a collection may take (ISO strings, compared as text). */
export interface GcCutoffs {
  /** Objects a push relied on after this are kept whatever reaches them (the grace window). */
  grace: string;
  /** History records written after this keep their digests (the history retention window). */
  history: string;
  /** Claims younger than this belong to writes still under way. */
  claims: string;
}

/** What one repository holds that nothing reaches. */
export interface RepoMark {
  repoUid: string;
  /** Unreachable manifests, in the order to delete them: indexes, then images, then referrers. */
  deadManifests: { digest: string; size: number }[];
  /** Unreachable blob links. */
  deadLinks: string[];
  /** Digests the repository keeps (linked or stored) after the collection. */
  kept: Set<string>;
}

/**
 * Marks one repository (DESIGN §8b): its roots are its tags, the digests of its history
 * records younger than the retention window, and every manifest or link a push relied on
 * within the grace window; from them, index children and the referrers of a reachable subject
 * are reachable, and so are the blobs reachable manifests reference. Everything else is dead.
 * A repository with a manifest whose references are unknown keeps all its links.
 */
export async function markRepo(db: Db, repoUid: string, cutoffs: GcCutoffs): Promise<RepoMark> {
  const [manifests, refs, tags, history, links] = await Promise.all([
    db
      .selectFrom("manifests")
      .select(["digest", "subject_digest", "last_time", "create_time", "refs_recorded", "size"])
      .where("repo_uid", "=", repoUid)
      .execute(),
    db
      .selectFrom("manifest_refs")
      .select(["manifest_digest", "digest", "kind"])
      .where("repo_uid", "=", repoUid)
      .execute(),
    db.selectFrom("tags").select("digest").where("parent_uid", "=", repoUid).execute(),
    db
      .selectFrom("tag_history")
      .select("digest")
      .distinct()
      .where("repo_uid", "=", repoUid)
      .where("update_time", ">=", cutoffs.history)
      .execute(),
    db
      .selectFrom("repo_blobs")
      .select(["digest", "last_time", "create_time"])
      .where("repo_uid", "=", repoUid)
      .execute(),
  ]);
  const refsOf = new Map<string, { digest: string; kind: string }[]>();
  for (const ref of refs) {
    const list = refsOf.get(ref.manifest_digest) ?? [];
    list.push(ref);
    refsOf.set(ref.manifest_digest, list);
  }
  const referrersOf = new Map<string, string[]>();
  for (const m of manifests) {
    if (!m.subject_digest) continue;
    const list = referrersOf.get(m.subject_digest) ?? [];
    list.push(m.digest);
    referrersOf.set(m.subject_digest, list);
  }
  const stored = new Set(manifests.map((m) => m.digest));
  const reachable = new Set<string>();
  const queue: string[] = [];
  const reach = (digest: string) => {
    if (!stored.has(digest) || reachable.has(digest)) return;
    reachable.add(digest);
    queue.push(digest);
  };
  for (const t of tags) reach(t.digest);
  for (const h of history) reach(h.digest);
  for (const m of manifests) if ((m.last_time ?? m.create_time) >= cutoffs.grace) reach(m.digest);
  const keptBlobs = new Set<string>();
  while (queue.length > 0) {
    const digest = queue.pop() as string;
    for (const ref of refsOf.get(digest) ?? []) {
      if (ref.kind === "manifest") reach(ref.digest);
      else keptBlobs.add(ref.digest);
    }
    for (const referrer of referrersOf.get(digest) ?? []) reach(referrer);
  }
  const unknownRefs = manifests.some((m) => m.refs_recorded !== 1);
  const rank = (m: (typeof manifests)[number]) =>
    m.subject_digest ? 2 : (refsOf.get(m.digest) ?? []).some((r) => r.kind === "manifest") ? 0 : 1;
  const deadManifests = manifests
    .filter((m) => !reachable.has(m.digest))
    .sort((a, b) => rank(a) - rank(b))
    .map((m) => ({ digest: m.digest, size: Number(m.size) }));
  const deadLinks = unknownRefs
    ? []
    : links
        .filter(
          (l) =>
            !keptBlobs.has(l.digest) &&
            !reachable.has(l.digest) &&
            (l.last_time ?? l.create_time) < cutoffs.grace,
        )
        .map((l) => l.digest);
  const dead = new Set(deadLinks);
  const kept = new Set<string>(reachable);
  for (const l of links) if (!dead.has(l.digest)) kept.add(l.digest);
  return { repoUid, deadManifests, deadLinks, kept };
}
