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
  const repoFilter =
    "repoUid" in scope
      ? sql`x.repo_uid = ${scope.repoUid}`
      : sql`x.repo_uid in (select uid from repos where root_uid = ${scope.orgUid})`;
  const result = await sql<{ bytes: unknown; objects: unknown }>`
    select coalesce(sum(b.size), 0) as bytes, count(*) as objects from blobs b
    where b.digest in (
      select x.digest from repo_blobs x where ${repoFilter}
      union select x.digest from manifests x where ${repoFilter}
    )`.execute(db);
  return toUsage(result.rows[0]);
}

/** Bytes per organisation (each distinct digest once per organisation), for /metrics. */
export async function usageByOrg(db: Db): Promise<{ orgUid: string; bytes: number }[]> {
  const result = await sql<{ org_uid: string; bytes: unknown }>`
    select d.root_uid as org_uid, coalesce(sum(b.size), 0) as bytes
    from (
      select r.root_uid, x.digest from repo_blobs x join repos r on r.uid = x.repo_uid
      union select r.root_uid, x.digest from manifests x join repos r on r.uid = x.repo_uid
    ) d join blobs b on b.digest = d.digest
    group by d.root_uid order by d.root_uid`.execute(db);
  return result.rows.map((r) => ({ orgUid: r.org_uid, bytes: Number(r.bytes) }));
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
  const list = [...new Set(digests)];
  const result = await sql<{ digest: string }>`
    select x.digest from repo_blobs x join repos r on r.uid = x.repo_uid
      where r.root_uid = ${orgUid} and x.digest in (${sql.join(list)})
    union select x.digest from manifests x join repos r on r.uid = x.repo_uid
      where r.root_uid = ${orgUid} and x.digest in (${sql.join(list)})`.execute(db);
  return new Set(result.rows.map((r) => r.digest));
}
