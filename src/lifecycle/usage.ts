import { type Kysely, sql } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";

type Db = Kysely<MetadataSchema>;

/** Bytes and distinct objects (blobs and manifests) of a scope. */
export interface Usage {
  bytes: number;
  objects: number;
}

const toUsage = (row: { bytes: unknown; objects: unknown } | undefined): Usage => ({
  bytes: Number(row?.bytes ?? 0),
  objects: Number(row?.objects ?? 0),
});

/**
 * What a set of repositories stores: every distinct digest linked (blobs) or stored
 * (manifests) in them, counted once with its size. `scope` names the repositories: one repo
 * by uid, or an organisation (every repo whose root it is).
 */
export async function storageUsage(
  db: Db,
  scope: { repoUid: string } | { orgUid: string },
): Promise<Usage> {
  if ("orgUid" in scope) {
    // org_usage sums each digest of the organisation once (migration 0013's triggers).
    const row = await db
      .selectFrom("org_usage")
      .select(["bytes", "objects"])
      .where("org_uid", "=", scope.orgUid)
      .executeTakeFirst();
    return toUsage(row);
  }
  const result = await sql<{ bytes: unknown; objects: unknown }>`
    select coalesce(sum(b.size), 0) as bytes, count(*) as objects from blobs b
    where b.digest in (
      select x.digest from repo_blobs x where x.repo_uid = ${scope.repoUid}
      union select x.digest from manifests x where x.repo_uid = ${scope.repoUid}
    )`.execute(db);
  return toUsage(result.rows[0]);
}

/** Bytes per organisation (each distinct digest once per organisation), for /metrics. */
export async function usageByOrg(db: Db): Promise<{ orgUid: string; bytes: number }[]> {
  const rows = await db
    .selectFrom("org_usage")
    .select(["org_uid", "bytes"])
    .where("objects", ">", 0)
    .orderBy("org_uid")
    .execute();
  return rows.map((r) => ({ orgUid: r.org_uid, bytes: Number(r.bytes) }));
}

/** Bytes of every blob and manifest the blob store holds for the registry. */
export async function totalStored(db: Db): Promise<number> {
  const row = await db
    .selectFrom("blobs")
    .select(sql<unknown>`coalesce(sum(size), 0)`.as("bytes"))
    .executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

/** Which of `digests` organisation `orgUid` already stores (linked or as a manifest). */
export async function storedInOrg(
  db: Db,
  orgUid: string,
  digests: readonly string[],
): Promise<Set<string>> {
  if (digests.length === 0) return new Set();
  const rows = await db
    .selectFrom("org_digests")
    .select("digest")
    .where("org_uid", "=", orgUid)
    .where("digest", "in", [...new Set(digests)])
    .execute();
  return new Set(rows.map((r) => r.digest));
}
