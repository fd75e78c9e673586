import type { Kysely } from "kysely";
import type { BlobStore } from "../../store/blobs/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { computeReport } from "../matching/index.ts";
import { type ScanOutcome, scanImage } from "./scan-image.ts";
import { type ScanKey, settleScan } from "./scan-results.ts";

/** Bounds on one scan's work. */
export interface ScanBounds {
  /** Packages one image may list; more fails the scan. Default 200,000. */
  maxPackages: number;
  /**
   * Package rows written per transaction, so a huge image never holds the store for long: on
   * SQLite a writer on the request thread waits out the lock synchronously, so a transaction
   * of 500 rows (about 10 ms) is as long as a request may be held up by one.
   */
  rowsPerTransaction: number;
}

export const defaultScanBounds: ScanBounds = { maxPackages: 200_000, rowsPerTransaction: 500 };

/** What a scan came to, once written: what the worker logs and acts on. */
export interface ScanSummary {
  kind: ScanOutcome["kind"];
  reason: string;
  packages: number;
  sbomSource: string;
  /** A finished scan was written under the claim: the image is to be matched. */
  written: boolean;
}

/**
 * Runs scans and matches. The server's runs them on a thread of their own (scan-thread.ts);
 * {@link inProcessRunner} on the calling one.
 */
export interface ScanRunner {
  /**
   * Scans the claimed image and writes its outcome under the claim. Store errors are thrown;
   * `signal` stops the scan (the promise then rejects with its reason).
   */
  scan(key: ScanKey, signal: AbortSignal): Promise<ScanSummary>;
  /** Computes the image's vulnerability report. */
  match(image: { repoUid: string; digest: string }): Promise<void>;
  close(): Promise<void>;
}

/** What a scan reads and writes through. */
export interface ScanStores {
  db: Kysely<MetadataSchema>;
  blobs: BlobStore;
  registryUrl: string;
  toolVersion: string;
  bounds: ScanBounds;
}

/** Scans and writes one claimed image with `stores`: the body of every runner. */
export async function runScan(
  stores: ScanStores,
  key: ScanKey,
  signal: AbortSignal,
): Promise<ScanSummary> {
  const { db, blobs, registryUrl, toolVersion, bounds } = stores;
  const outcome = await Promise.race([
    scanImage({ db, blobs, registryUrl, toolVersion, signal, bounds }, key.repoUid, key.digest),
    aborted(signal),
  ]);
  const written = await settleScan(db, key, outcome, bounds.rowsPerTransaction);
  return {
    kind: outcome.kind,
    reason: "reason" in outcome ? outcome.reason : "",
    packages: outcome.kind === "done" ? outcome.packages.length : 0,
    sbomSource: outcome.kind === "done" ? outcome.sbomSource : "",
    written,
  };
}

/** Runs scans and matches on the calling thread: for tests of the queue and small tools. */
export function inProcessRunner(stores: ScanStores): ScanRunner {
  return {
    scan: (key, signal) => runScan(stores, key, signal),
    match: async (image) => {
      await computeReport(stores.db, image);
    },
    close: async () => {},
  };
}

/** A promise that rejects with `signal`'s reason once it aborts. */
export function aborted(signal: AbortSignal): Promise<never> {
  return new Promise((_, reject) => {
    if (signal.aborted) reject(signal.reason);
    signal.addEventListener("abort", () => reject(signal.reason), { once: true });
  });
}
