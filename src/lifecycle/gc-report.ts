import type { GcRunsTable } from "../store/metadata/index.ts";

/** What one collection did (or, dry, would do). */
export interface GcReport {
  uid: string;
  /** `schedule`, `cli` or `api`. */
  trigger: string;
  dryRun: boolean;
  /** `running`, `done` or `failed`. */
  state: string;
  startTime: string;
  endTime: string;
  manifestsDeleted: number;
  linksDeleted: number;
  blobsDeleted: number;
  bytesReclaimed: number;
  uploadsExpired: number;
  filesSwept: number;
  durationMs: number;
  error: string;
}

/** A gc_runs row as a report. */
export function reportFromRow(row: GcRunsTable): GcReport {
  return {
    uid: row.uid,
    trigger: row.trigger,
    dryRun: row.dry_run === 1,
    state: row.state,
    startTime: row.start_time,
    endTime: row.end_time,
    manifestsDeleted: Number(row.manifests_deleted),
    linksDeleted: Number(row.links_deleted),
    blobsDeleted: Number(row.blobs_deleted),
    bytesReclaimed: Number(row.bytes_reclaimed),
    uploadsExpired: Number(row.uploads_expired),
    filesSwept: Number(row.files_swept),
    durationMs: Number(row.duration_ms),
    error: row.error,
  };
}

/** A report as a gc_runs row. */
export function rowFromReport(r: GcReport): GcRunsTable {
  return {
    uid: r.uid,
    trigger: r.trigger,
    dry_run: r.dryRun ? 1 : 0,
    state: r.state,
    start_time: r.startTime,
    end_time: r.endTime,
    manifests_deleted: r.manifestsDeleted,
    links_deleted: r.linksDeleted,
    blobs_deleted: r.blobsDeleted,
    bytes_reclaimed: r.bytesReclaimed,
    uploads_expired: r.uploadsExpired,
    files_swept: r.filesSwept,
    duration_ms: r.durationMs,
    error: r.error,
  };
}
