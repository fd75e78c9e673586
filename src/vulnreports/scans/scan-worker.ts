import { readFileSync } from "node:fs";
import type { Kysely } from "kysely";
import type { Logger } from "pino";
import type { BlobStore } from "../../store/blobs/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import type { PushedManifest } from "./pushed-manifest.ts";
import { enqueuePushed } from "./scan-queue.ts";
import { recordRetry, releaseClaim, type ScanKey, settleScan } from "./scan-results.ts";
import {
  defaultScanBounds,
  inProcessRunner,
  type ScanBounds,
  type ScanRunner,
  type ScanSummary,
} from "./scan-runner.ts";
import { createScanThread, ScanOutOfMemory, type ScanThreadOptions } from "./scan-thread.ts";

/** Computes an image's vulnerability report from its packages (the matching library). */
export type MatchImage = (image: { repoUid: string; digest: string }) => Promise<void>;

export interface ScanWorkerOptions {
  db: Kysely<MetadataSchema>;
  blobs: BlobStore;
  /** A logger without request context; nothing secret is logged. */
  log: Logger;
  /** Replaces the runner's matching (tests record the calls). */
  match?: MatchImage;
  /** Runs the scans and matches; default: on `thread` when given, else on this thread. */
  runner?: ScanRunner;
  /** Scans and matches run on a thread of their own, opened with these (the server's way). */
  thread?: Pick<ScanThreadOptions, "store" | "blobs" | "maxMemoryMib" | "idleMs" | "onIdle">;
  /** Bounds on each scan. */
  bounds?: ScanBounds;
  /** The registry URL, named in generated SBOMs. */
  registryUrl: string;
  /** Written into generated SBOMs as `Tool: lading-<version>`; default package.json's. */
  toolVersion?: string;
  /** How often the queue is read when nothing wakes the worker. Default 5 s. */
  pollMs?: number;
  /** A scan running longer fails; a claim older than this is taken over. Default 15 min. */
  scanTimeoutMs?: number;
  /** A scan interrupted by a store error is retried after this, times the attempts. 10 s. */
  retryDelayMs?: number;
  /** False: pushes are queued, but this process scans nothing (config scanImages). */
  scan?: boolean;
  /**
   * Told how each scan ended (the process metrics count them): `seconds` is the scan's run time
   * for a scan that was written or failed, absent after a store error (retried, or failed at
   * the last attempt).
   */
  onScanned?(outcome: "done" | "failed" | "retry", seconds?: number): void;
}

/** The background scanner of one process. */
export interface ScanWorker {
  /** The OCI door's hook: queues what the push asks for and wakes the worker. Never throws. */
  onManifestPushed(pushed: PushedManifest): void;
  /** Reads the queue now. */
  wake(): void;
  /** Stops claiming, stops the scan under way (its row goes back to the queue), waits. */
  close(): Promise<void>;
}

/** Store errors are retried this often before the scan is marked failed. */
const MAX_ATTEMPTS = 3;

class ScanTimeout extends Error {}
class WorkerClosed extends Error {}

/**
 * Starts the worker that takes images off the `image_scans` queue, one at a time (scans are
 * CPU-bound and the process serves requests too). Claims are conditional updates, so several
 * replicas share one queue and never scan one image at once; a claim left by a crashed
 * replica is taken over once older than the scan time limit.
 */
export function createScanWorker(options: ScanWorkerOptions): ScanWorker {
  const { db, blobs, log } = options;
  const pollMs = options.pollMs ?? 5_000;
  const timeoutMs = options.scanTimeoutMs ?? 15 * 60_000;
  const toolVersion = options.toolVersion ?? packageVersion();
  const stores = {
    registryUrl: options.registryUrl,
    toolVersion,
    bounds: options.bounds ?? defaultScanBounds,
  };
  const runner =
    options.runner ??
    (options.thread
      ? createScanThread({ ...stores, ...options.thread })
      : inProcessRunner({ ...stores, db, blobs }));
  const match = options.match ?? runner.match;
  const retryDelayMs = options.retryDelayMs ?? 10_000;
  let closed = false;
  let woken = false;
  let sleeping: { timer: NodeJS.Timeout; resolve: () => void } | undefined;
  let inFlight: AbortController | undefined;

  const wake = () => {
    woken = true;
    if (sleeping) {
      clearTimeout(sleeping.timer);
      sleeping.resolve();
    }
  };
  const sleep = () =>
    new Promise<void>((resolve) => {
      if (woken || closed) return resolve();
      sleeping = { timer: setTimeout(resolve, pollMs), resolve };
    }).finally(() => {
      sleeping = undefined;
    });

  async function loop(): Promise<void> {
    while (!closed) {
      woken = false;
      let worked = false;
      try {
        worked = await step();
      } catch (err) {
        log.warn({ err }, "reading the scan queue failed");
      }
      if (!worked) await sleep();
    }
  }

  /** Claims and handles one row; false when the queue had nothing to do now. */
  async function step(): Promise<boolean> {
    const time = new Date();
    const now = time.toISOString();
    const cutoff = new Date(time.getTime() - timeoutMs).toISOString();
    // One query per kind of work, each a range of the (state, update_time) index: an OR of the
    // three would read them all. Scans come first; re-matching waits for an idle queue.
    const due = (state: "pending" | "scanning" | "done") =>
      db
        .selectFrom("image_scans")
        .select(["repo_uid", "digest"])
        .where("state", "=", state)
        .where("update_time", "<=", now)
        .orderBy("update_time")
        .limit(8);
    const scans = [
      ...(await due("pending").execute()),
      ...(await due("scanning").where("claim_time", "<", cutoff).execute()),
    ];
    for (const c of scans) {
      if (closed) return false;
      const claimed = await db
        .updateTable("image_scans")
        .set({ state: "scanning", claim_time: now, update_time: now })
        .where("repo_uid", "=", c.repo_uid)
        .where("digest", "=", c.digest)
        .where((eb) =>
          eb.or([
            eb.and([eb("state", "=", "pending"), eb("update_time", "<=", now)]),
            eb.and([eb("state", "=", "scanning"), eb("claim_time", "<", cutoff)]),
          ]),
        )
        .executeTakeFirst();
      if (Number(claimed.numUpdatedRows) === 1) {
        await scanClaimed(c.repo_uid, c.digest, now);
        return true;
      }
    }
    for (const c of await due("done").where("rematch", "=", 1).execute()) {
      if (closed) return false;
      if (await claimRematch(c.repo_uid, c.digest, now)) {
        await runMatch(c.repo_uid, c.digest);
        return true;
      }
    }
    return false;
  }

  async function claimRematch(repoUid: string, digest: string, now: string) {
    const claimed = await db
      .updateTable("image_scans")
      .set({ rematch: 0, update_time: now })
      .where("repo_uid", "=", repoUid)
      .where("digest", "=", digest)
      .where("state", "=", "done")
      .where("rematch", "=", 1)
      .executeTakeFirst();
    return Number(claimed.numUpdatedRows) === 1;
  }

  /** Calls the matcher; a failure leaves the image marked for another try a minute later. */
  async function runMatch(repoUid: string, digest: string) {
    try {
      await match({ repoUid, digest });
    } catch (err) {
      log.warn({ err, repoUid, digest }, "matching an image failed; it will be retried");
      await db
        .updateTable("image_scans")
        .set({ rematch: 1, update_time: new Date(Date.now() + 60_000).toISOString() })
        .where("repo_uid", "=", repoUid)
        .where("digest", "=", digest)
        .execute();
    }
  }

  async function scanClaimed(repoUid: string, digest: string, claim: string) {
    const key: ScanKey = { repoUid, digest, claim };
    const controller = new AbortController();
    inFlight = controller;
    const timer = setTimeout(() => controller.abort(new ScanTimeout()), timeoutMs);
    const started = performance.now();
    let summary: ScanSummary;
    try {
      summary = await runner.scan(key, controller.signal);
    } catch (err) {
      const reason = controller.signal.reason;
      if (reason instanceof WorkerClosed) return await release(key);
      if (reason instanceof ScanTimeout) {
        return await fail(key, `the scan took longer than the ${timeoutMs / 1000} s allowed`);
      }
      if (err instanceof ScanOutOfMemory) return await fail(key, err.message);
      return await retryLater(key, err);
    } finally {
      clearTimeout(timer);
      inFlight = undefined;
    }
    const ms = Math.round(performance.now() - started);
    const { kind, reason } = summary;
    // An attestation or a vanished image is not a scan of an image: not counted.
    if (kind === "done" || kind === "failed") options.onScanned?.(kind, ms / 1000);
    if (kind === "failed") {
      log.info({ repoUid, digest, reason, ms }, "image scan failed");
    } else if (kind === "done" && summary.written) {
      log.info(
        { repoUid, digest, sbom: summary.sbomSource, packages: summary.packages, ms },
        "image scanned",
      );
      await runMatch(repoUid, digest);
    } else if (kind === "gone") {
      log.debug({ repoUid, digest, reason }, "not scanned");
    }
  }

  /** A scan stopped by a bound: failed with the bound's reason. */
  async function fail(key: ScanKey, reason: string) {
    log.info({ repoUid: key.repoUid, digest: key.digest, reason }, "image scan failed");
    try {
      await settleScan(db, key, { kind: "failed", reason, sboms: [] });
    } catch (err) {
      return await retryLater(key, err);
    }
    options.onScanned?.("failed");
  }

  /** A store error: back to the queue after a delay, or failed after the last attempt. */
  async function retryLater(key: ScanKey, err: unknown) {
    log.warn({ err, repoUid: key.repoUid, digest: key.digest }, "image scan interrupted");
    const message = err instanceof Error ? err.message : String(err);
    const last = await recordRetry(db, key, message, MAX_ATTEMPTS, retryDelayMs).catch(
      (error: unknown) => {
        // The claim expires after the time limit and another pass takes the row over.
        log.warn({ err: error }, "recording a scan retry failed");
        return false;
      },
    );
    options.onScanned?.(last ? "failed" : "retry");
  }

  async function release(key: ScanKey) {
    await releaseClaim(db, key).catch((err: unknown) =>
      log.warn({ err }, "releasing a scan claim failed"),
    );
  }

  const running = options.scan === false ? Promise.resolve() : loop();
  return {
    onManifestPushed(pushed) {
      enqueuePushed(db, pushed)
        .then((queued) => {
          if (queued) wake();
        })
        .catch((err: unknown) =>
          log.warn(
            { err, repoUid: pushed.repoUid, digest: pushed.digest },
            "queueing a scan failed",
          ),
        );
    },
    wake,
    async close() {
      closed = true;
      inFlight?.abort(new WorkerClosed());
      wake();
      await running;
      await runner.close();
    },
  };
}

function packageVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../../package.json", import.meta.url), "utf8"));
  return String(pkg.version);
}
