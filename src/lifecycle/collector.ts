import { randomUUID } from "node:crypto";
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { BlobStore } from "../store/blobs/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { acquireLease, releaseLease } from "../store/metadata/index.ts";
import { claimTtlMs } from "./content-claims.ts";
import { type GcCutoffs, markRepo } from "./gc-mark.ts";
import type { GcReport } from "./gc-report.ts";
import { rowFromReport } from "./gc-report.ts";
import { sweepBatch, sweepContent, sweepLinks, sweepManifests } from "./gc-sweep.ts";
import { backfillManifestRefs } from "./refs-backfill.ts";

type Db = Kysely<MetadataSchema>;

/** The lease every replica's collector takes (one collection at a time per database). */
export const gcLeaseName = "registry-gc";
const leaseTtlMs = 60_000;

/**
 * A step run under the collector's lease before marking, in the same run (retention policies
 * plug in here: what they delete is then collected by the same run).
 */
export interface CollectStep {
  name: string;
  run(context: { db: Db; dryRun: boolean; log: Logger; now: Date }): Promise<void>;
}

/** What a collector needs. */
export interface CollectorOptions {
  db: Db;
  blobs: BlobStore;
  log: Logger;
  /** Objects a push relied on within this window are kept. Default 2 h. */
  graceMs: number;
  /** Manifests named by history records younger than this are kept. Default 30 days. */
  historyRetentionMs: number;
  /** This replica's name in the lease. */
  holder: string;
  /** Run before marking (see CollectStep). */
  beforeCollect?: CollectStep[];
  /** Expires idle upload sessions and removes orphaned temp data. */
  sweepUploads?: () => Promise<{ sessions: number; files: number }>;
  /**
   * Rest after each slice of work, as a multiple of the event loop's busy time during it
   * (default 2: the collector takes at most a third of the event loop while it runs).
   */
  pace?: number;
  /** Told of every finished run. */
  onReport?: (report: GcReport) => void;
}

/** Thrown when another replica holds the lease. */
export class CollectionBusyError extends Error {
  constructor() {
    super("another garbage collection is running");
  }
}

/**
 * One garbage collection (docs/operations.md): takes the lease (or throws CollectionBusyError),
 * runs the beforeCollect steps, records the references of manifests pushed before they were
 * recorded, then marks and sweeps each repository's manifests and links, deletes the bytes
 * nothing reaches, and sweeps uploads. A dry run marks and counts only. Records the run in
 * gc_runs (`onStart` is told once its row is there), logs it and reports it.
 */
export async function collectGarbage(
  options: CollectorOptions,
  run: {
    trigger: string;
    dryRun: boolean;
    onStart?: (report: GcReport) => void;
    /** Told once the lease is given back, before the row records the end. */
    onRelease?: () => void;
  },
): Promise<GcReport> {
  const { db, log, holder } = options;
  if (!(await acquireLease(db, gcLeaseName, holder, leaseTtlMs))) throw new CollectionBusyError();
  let lost = false;
  const renewal = setInterval(() => {
    acquireLease(db, gcLeaseName, holder, leaseTtlMs).then(
      (held) => {
        if (!held) lost = true;
      },
      () => {
        lost = true;
      },
    );
  }, leaseTtlMs / 3);
  renewal.unref();
  const start = new Date();
  const report: GcReport = {
    uid: randomUUID(),
    trigger: run.trigger,
    dryRun: run.dryRun,
    state: "running",
    startTime: start.toISOString(),
    endTime: "",
    manifestsDeleted: 0,
    linksDeleted: 0,
    blobsDeleted: 0,
    bytesReclaimed: 0,
    uploadsExpired: 0,
    filesSwept: 0,
    durationMs: 0,
    error: "",
  };
  try {
    // With the lease held no other run can be under way: a row still "running" is the record
    // of a replica that stopped mid-run, and would otherwise show as running for good.
    await db
      .updateTable("gc_runs")
      .set({
        state: "failed",
        end_time: report.startTime,
        error: "the replica running it stopped before it ended",
      })
      .where("state", "=", "running")
      .execute();
    await db.insertInto("gc_runs").values(rowFromReport(report)).execute();
    run.onStart?.({ ...report });
    for (const step of options.beforeCollect ?? []) {
      await step.run({ db, dryRun: run.dryRun, log, now: start });
    }
    const cutoffs: GcCutoffs = {
      grace: new Date(start.getTime() - options.graceMs).toISOString(),
      history: new Date(start.getTime() - options.historyRetentionMs).toISOString(),
      claims: new Date(start.getTime() - claimTtlMs).toISOString(),
    };
    await backfillManifestRefs(db, options.blobs, log);
    const stopped = () => {
      if (lost) throw new Error("the garbage collection lease was lost");
      return false;
    };
    // Rest as long as the event loop was busy during the last slice, times the pace: the
    // collector shares the event loop (and, on SQLite, the one connection) with the requests it
    // must not slow down. Time spent waiting for PostgreSQL or S3 costs requests nothing and
    // earns no rest; requests served meanwhile count as busy, so a loaded server rests more.
    let slice = performance.eventLoopUtilization();
    const pace = async () => {
      const busy = performance.eventLoopUtilization(slice).active;
      if (busy > 5) await sleep(busy * (options.pace ?? 2));
      slice = performance.eventLoopUtilization();
    };
    const kept = new Set<string>();
    let after = "";
    for (;;) {
      const repos = await db
        .selectFrom("repos")
        .select("uid")
        .where("uid", ">", after)
        .orderBy("uid")
        .limit(500)
        .execute();
      if (repos.length === 0) break;
      after = repos[repos.length - 1].uid;
      for (const { uid } of repos) {
        stopped();
        await pace();
        const mark = await markRepo(db, uid, cutoffs);
        if (run.dryRun) {
          report.manifestsDeleted += mark.deadManifests.length;
          report.linksDeleted += mark.deadLinks.length;
          for (const d of mark.kept) kept.add(d);
          continue;
        }
        for (let i = 0; i < mark.deadManifests.length; i += sweepBatch) {
          await pace();
          const batch = mark.deadManifests.slice(i, i + sweepBatch).map((m) => m.digest);
          report.manifestsDeleted += (await sweepManifests(db, uid, batch, cutoffs)).length;
        }
        for (let i = 0; i < mark.deadLinks.length; i += sweepBatch) {
          await pace();
          const batch = mark.deadLinks.slice(i, i + sweepBatch);
          report.linksDeleted += await sweepLinks(db, uid, batch, cutoffs);
        }
      }
    }
    if (run.dryRun) {
      const would = await wouldDelete(db, cutoffs, kept);
      report.blobsDeleted = would.blobs;
      report.bytesReclaimed = would.bytes;
    } else {
      const swept = await sweepContent(db, options.blobs, report.uid, cutoffs, stopped, pace);
      report.blobsDeleted = swept.blobs;
      report.bytesReclaimed = swept.bytes;
      const uploads = await options.sweepUploads?.();
      report.uploadsExpired = uploads?.sessions ?? 0;
      report.filesSwept = uploads?.files ?? 0;
    }
    report.state = "done";
  } catch (error) {
    report.state = "failed";
    report.error = error instanceof Error ? error.message : String(error);
  } finally {
    clearInterval(renewal);
    report.endTime = new Date().toISOString();
    report.durationMs = Date.now() - start.getTime();
    // The lease goes first: whoever reads the run's end in gc_runs may start the next at once.
    await releaseLease(db, gcLeaseName, holder).catch(() => undefined);
    run.onRelease?.();
    await db
      .updateTable("gc_runs")
      .set(rowFromReport(report))
      .where("uid", "=", report.uid)
      .execute()
      .catch((err: unknown) => log.warn({ err }, "recording the garbage collection failed"));
  }
  const line = { ...report, component: "gc" };
  if (report.state === "done") log.info(line, "garbage collection finished");
  else log.warn(line, "garbage collection failed");
  options.onReport?.(report);
  return report;
}

/** What a collection would delete from the blob store, given the digests repositories keep. */
async function wouldDelete(db: Db, cutoffs: GcCutoffs, kept: ReadonlySet<string>) {
  const result = { blobs: 0, bytes: 0 };
  let after = "";
  for (;;) {
    const page = await db
      .selectFrom("blobs")
      .select(["digest", "size", "last_time", "create_time"])
      .where("digest", ">", after)
      .where("doomed", "is", null)
      .orderBy("digest")
      .limit(5000)
      .execute();
    if (page.length === 0) return result;
    after = page[page.length - 1].digest;
    const claimed = new Set(
      (
        await db
          .selectFrom("blob_claims")
          .select("digest")
          .where(
            "digest",
            "in",
            page.map((p) => p.digest),
          )
          .where("create_time", ">=", cutoffs.claims)
          .execute()
      ).map((c) => c.digest),
    );
    for (const row of page) {
      if (kept.has(row.digest) || claimed.has(row.digest)) continue;
      if ((row.last_time ?? row.create_time) >= cutoffs.grace) continue;
      result.blobs += 1;
      result.bytes += Number(row.size);
    }
  }
}
