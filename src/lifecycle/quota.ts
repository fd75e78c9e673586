import type { Kysely } from "kysely";
import { recordEvent } from "../events/index.ts";
import { type MetadataSchema, runInTransaction } from "../store/metadata/index.ts";
import { storageUsage, storedInOrg } from "./usage.ts";

type Db = Kysely<MetadataSchema>;

/** Share of the quota whose crossing records `dev.lading.registry.quota.threshold.v1`. */
export const quotaWarningShare = 0.8;

/** A push would take its organisation over its quota. */
export class QuotaExceededError extends Error {
  readonly used: number;
  readonly quota: number;
  readonly attempted: number;

  constructor(used: number, quota: number, attempted: number) {
    super(
      `the organisation's storage quota of ${quota} bytes would be exceeded: ${used} bytes used, ${attempted} more attempted`,
    );
    this.used = used;
    this.quota = quota;
    this.attempted = attempted;
  }
}

/** An organisation's quota, or undefined when it has none. */
export async function quotaOf(db: Db, orgUid: string): Promise<number | undefined> {
  const row = await db
    .selectFrom("org_quotas")
    .select("quota_bytes")
    .where("group_uid", "=", orgUid)
    .executeTakeFirst();
  return row ? Number(row.quota_bytes) : undefined;
}

/** Sets (bytes) or removes (undefined) an organisation's quota. */
export async function setQuota(db: Db, orgUid: string, bytes: number | undefined): Promise<void> {
  if (bytes === undefined) {
    await db.deleteFrom("org_quotas").where("group_uid", "=", orgUid).execute();
    return;
  }
  const time = new Date().toISOString();
  await db
    .insertInto("org_quotas")
    .values({ group_uid: orgUid, quota_bytes: bytes, warned: 0, update_time: time })
    .onConflict((oc) =>
      oc.column("group_uid").doUpdateSet({ quota_bytes: bytes, warned: 0, update_time: time }),
    )
    .execute();
}

/**
 * Refuses (QuotaExceededError) a push into organisation `orgUid` that would store `added`
 * beyond its quota; digests the organisation already stores cost nothing. A push that brings
 * usage to 80 % or more records the threshold event once, until usage falls below it again.
 * Concurrent pushes may each pass and together overshoot by what they add: the check bounds
 * growth per push, it is not a reservation.
 */
export async function checkQuota(
  db: Db,
  registryUrl: string,
  orgUid: string,
  added: readonly { digest: string; size: number }[],
): Promise<void> {
  const quota = await quotaOf(db, orgUid);
  if (quota === undefined) return;
  const present = await storedInOrg(
    db,
    orgUid,
    added.map((a) => a.digest),
  );
  const seen = new Set(present);
  let attempted = 0;
  for (const a of added) {
    if (seen.has(a.digest)) continue;
    seen.add(a.digest);
    attempted += a.size;
  }
  const used = (await storageUsage(db, { orgUid })).bytes;
  if (attempted > 0 && used + attempted > quota)
    throw new QuotaExceededError(used, quota, attempted);
  const reached = used + attempted >= quota * quotaWarningShare;
  await runInTransaction(db, async (trx) => {
    const changed = await trx
      .updateTable("org_quotas")
      .set({ warned: reached ? 1 : 0 })
      .where("group_uid", "=", orgUid)
      .where("warned", "=", reached ? 0 : 1)
      .executeTakeFirst();
    if (!reached || Number(changed.numUpdatedRows) === 0) return;
    await recordEvent(trx, {
      type: "dev.lading.registry.quota.threshold.v1",
      source: registryUrl,
      subject: orgUid,
      groupUid: orgUid,
      actor: { subject: "" },
      body: {
        org_id: orgUid,
        used_bytes: used + attempted,
        quota_bytes: quota,
        share: quotaWarningShare,
      },
    });
  });
}
