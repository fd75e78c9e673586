import type { BlobStoreDriver, UploadState } from "../../store/blobs/index.ts";
import type { OciContext } from "./oci-context.ts";

/** What one sweep removed. */
export interface SweepResult {
  /** Upload sessions expired (idle past their expiry) and aborted. */
  sessions: number;
  /** Temp files or objects (and S3 multipart uploads) that no live session owned. */
  files: number;
}

/** How long uploads may idle and orphans may linger. */
export interface SweepOptions {
  /** A session untouched this long expires. */
  uploadTtlMs: number;
  /** Temp data of no live session is removed once untouched this long. */
  orphanTtlMs: number;
}

/**
 * One sweep: expires sessions idle past `uploadTtlMs`, then has the blob store remove temp data
 * untouched for `orphanTtlMs` — what a killed monolithic upload, a crash between creating a
 * session's file and its row, or an abort that failed left behind — sparing the data of every
 * session that still exists, however old its files look (another replica's clock, a restore).
 */
export async function sweepUploads(
  ctx: OciContext,
  blobs: Partial<BlobStoreDriver>,
  options: SweepOptions,
): Promise<SweepResult> {
  const sessions = await expireUploads(ctx, options.uploadTtlMs);
  // Read after expiring, and every row counts: keeping too much is harmless, the next sweep
  // catches up; removing a live session's file is not.
  const rows = await ctx.db.selectFrom("uploads").select("state").execute();
  const keep = rows.map((row) => JSON.parse(row.state) as UploadState);
  const files = blobs.sweep ? await blobs.sweep(options.orphanTtlMs, keep) : 0;
  return { sessions, files };
}

/** Aborts and forgets every upload session untouched for `uploadTtlMs`; returns how many. */
async function expireUploads(ctx: OciContext, uploadTtlMs: number): Promise<number> {
  const cutoff = new Date(Date.now() - uploadTtlMs).toISOString();
  const stale = await ctx.db
    .selectFrom("uploads")
    .select(["id", "state"])
    .where("update_time", "<", cutoff)
    .execute();
  for (const row of stale) {
    await ctx.db.deleteFrom("uploads").where("id", "=", row.id).execute();
    await ctx.blobs.abortUpload(JSON.parse(row.state) as UploadState).catch(() => undefined);
  }
  return stale.length;
}
