import type { Rejection } from "../feeds/feed-records.ts";

/** Most rejections an import keeps to show; the count goes on. */
export const maxKeptRejections = 1000;

/** What an import did. Every record read ends up in exactly one count. */
export interface ImportSummary {
  created: number;
  updated: number;
  withdrawn: number;
  unchanged: number;
  rejected: number;
  /** The first rejections, with file and position. */
  rejections: Rejection[];
}

/** An empty summary. */
export function emptySummary(): ImportSummary {
  return { created: 0, updated: 0, withdrawn: 0, unchanged: 0, rejected: 0, rejections: [] };
}

/** Counts `rejections` into `summary`, keeping the first ones. */
export function addRejections(summary: ImportSummary, rejections: readonly Rejection[]): void {
  summary.rejected += rejections.length;
  for (const r of rejections) {
    if (summary.rejections.length >= maxKeptRejections) break;
    summary.rejections.push(r);
  }
}

/** Adds `more` into `summary`. */
export function addSummary(summary: ImportSummary, more: ImportSummary): void {
  summary.created += more.created;
  summary.updated += more.updated;
  summary.withdrawn += more.withdrawn;
  summary.unchanged += more.unchanged;
  addRejections(summary, more.rejections);
  summary.rejected += more.rejected - more.rejections.length;
}
