import type { Kysely } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";

type Db = Kysely<MetadataSchema>;

/** What one manifest references in its repository. */
export interface ManifestRef {
  digest: string;
  kind: "blob" | "manifest";
}

/**
 * The references of a stored manifest's bytes (config, layers, `blobs`, index children; not
 * `subject`, not descriptors with `urls`, whose bytes live elsewhere). Used for manifests
 * pushed before their references were recorded; bytes that do not parse reference nothing.
 */
export function refsOfManifest(bytes: Buffer): { value?: ManifestRef[]; error?: string } {
  let doc: unknown;
  try {
    doc = JSON.parse(bytes.toString("utf8"));
  } catch {
    return { error: "not JSON" };
  }
  if (typeof doc !== "object" || doc === null) return { error: "not an object" };
  const record = doc as Record<string, unknown>;
  const refs: ManifestRef[] = [];
  const add = (value: unknown, kind: ManifestRef["kind"]) => {
    if (typeof value !== "object" || value === null) return;
    const d = value as { digest?: unknown; urls?: unknown };
    if (typeof d.digest !== "string") return;
    if (Array.isArray(d.urls) && d.urls.length > 0) return;
    refs.push({ digest: d.digest, kind });
  };
  add(record.config, "blob");
  for (const list of [record.layers, record.blobs]) {
    if (Array.isArray(list)) for (const item of list) add(item, "blob");
  }
  if (Array.isArray(record.manifests)) for (const item of record.manifests) add(item, "manifest");
  return { value: refs };
}

/** Records `refs` of manifest `digest` in repo `repoUid` and marks them recorded. */
export async function recordManifestRefs(
  db: Db,
  repoUid: string,
  digest: string,
  refs: readonly ManifestRef[],
): Promise<void> {
  const seen = new Set<string>();
  const rows = refs
    .filter((r) => !seen.has(r.digest) && seen.add(r.digest))
    .map((r) => ({ repo_uid: repoUid, manifest_digest: digest, digest: r.digest, kind: r.kind }));
  for (let i = 0; i < rows.length; i += 500) {
    await db
      .insertInto("manifest_refs")
      .values(rows.slice(i, i + 500))
      .onConflict((oc) => oc.columns(["repo_uid", "manifest_digest", "digest"]).doNothing())
      .execute();
  }
  await db
    .updateTable("manifests")
    .set({ refs_recorded: 1 })
    .where("repo_uid", "=", repoUid)
    .where("digest", "=", digest)
    .execute();
}

/**
 * In the transaction that stores a manifest: marks its blobs and child manifests in the repo
 * as relied on now, which revives any a collection had picked, and returns those that are gone
 * (a collection deleted them after the push checked): the push must then fail rather than
 * store a manifest whose references are missing (DESIGN §8b). On PostgreSQL the updates lock
 * the rows, so a collection deleting them either finished first (they are reported gone) or
 * waits and then sees them in use.
 */
export async function reviveReferences(
  db: Db,
  repoUid: string,
  blobDigests: readonly string[],
  childDigests: readonly string[],
): Promise<string[]> {
  const time = new Date().toISOString();
  const missing: string[] = [];
  const blobs = [...new Set(blobDigests)];
  if (blobs.length > 0) {
    const found = await db
      .updateTable("repo_blobs")
      .set({ last_time: time })
      .where("repo_uid", "=", repoUid)
      .where("digest", "in", blobs)
      .returning("digest")
      .execute();
    const have = new Set(found.map((f) => f.digest));
    missing.push(...blobs.filter((d) => !have.has(d)));
  }
  const children = [...new Set(childDigests)];
  if (children.length > 0) {
    const found = await db
      .updateTable("manifests")
      .set({ last_time: time })
      .where("repo_uid", "=", repoUid)
      .where("digest", "in", children)
      .returning("digest")
      .execute();
    const have = new Set(found.map((f) => f.digest));
    missing.push(...children.filter((d) => !have.has(d)));
  }
  return missing;
}

/** Forgets the references of manifests of repo `repoUid` no longer stored (after deletes). */
export async function dropManifestRefs(db: Db, repoUid: string, digests: readonly string[]) {
  if (digests.length === 0) return;
  await db
    .deleteFrom("manifest_refs")
    .where("repo_uid", "=", repoUid)
    .where("manifest_digest", "in", [...digests])
    .execute();
}
