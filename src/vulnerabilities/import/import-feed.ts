import { type Kysely, PostgresAdapter, sql } from "kysely";
import { afterCommit, inTransaction, type MetadataSchema } from "../../store/metadata/index.ts";
import type {
  AdvisoryRecord,
  FeedInput,
  FeedParser,
  VulnerabilityRecord,
} from "../feeds/feed-records.ts";
import { metadataOwnerOf } from "../metadata-view.ts";
import type { ImportTarget } from "./advisory-row.ts";
import { AdvisoryWriter } from "./advisory-writer.ts";
import { addRejections, emptySummary, type ImportSummary } from "./import-summary.ts";
import { writeVulnerabilities } from "./vulnerability-writer.ts";

/** Changes after which an import refreshes the planner's statistics of the tables it wrote. */
const analyzeAfter = 1000;

/** Records gathered from several small files before they are written together. */
const flushAt = 10000;

/** How far an import has come. */
export interface ImportProgress {
  files: number;
  records: number;
}

/** How one import runs. */
export interface ImportFeedOptions {
  /**
   * The inputs are the whole source: afterwards, entries of documents no input held (nor
   * `knownDocuments`) are withdrawn. False for a partial import.
   */
  finish: boolean;
  /** Documents an earlier part of the same run imported (the API's batched calls). */
  knownDocuments?: readonly string[];
  /** Called after each input. */
  onProgress?: (progress: ImportProgress) => void;
}

/** What an import did, and the documents it read. */
export interface ImportResult {
  summary: ImportSummary;
  documents: string[];
}

/**
 * Parses each input with `parser` and writes what it yields under `target`. A malformed
 * record is counted as rejected with its file and position and never stops the batch. The
 * metadata the records carry is public only for an import into the public advisories group;
 * into any other group it is that organisation's private copy (metadataOwnerOf).
 */
export async function importFeed(
  db: Kysely<MetadataSchema>,
  target: ImportTarget,
  parser: FeedParser,
  inputs: Iterable<FeedInput> | AsyncIterable<FeedInput>,
  options: ImportFeedOptions,
): Promise<ImportResult> {
  const summary = emptySummary();
  const writer = new AdvisoryWriter(db, target, summary);
  const owner = metadataOwnerOf(target.parentUid);
  let advisories: AdvisoryRecord[] = [];
  let vulnerabilities: VulnerabilityRecord[] = [];
  const flush = async () => {
    if (advisories.length > 0) await writer.write(advisories);
    if (vulnerabilities.length > 0) await writeVulnerabilities(db, vulnerabilities, summary, owner);
    advisories = [];
    vulnerabilities = [];
  };
  const progress: ImportProgress = { files: 0, records: 0 };
  for await (const input of inputs) {
    const parsed = parser(input);
    addRejections(summary, parsed.rejected);
    writer.markDamaged(parsed.damagedDocuments);
    advisories.push(...parsed.advisories);
    vulnerabilities.push(...parsed.vulnerabilities);
    progress.files++;
    progress.records +=
      parsed.advisories.length + parsed.vulnerabilities.length + parsed.rejected.length;
    if (advisories.length + vulnerabilities.length >= flushAt) await flush();
    options.onProgress?.(progress);
  }
  await flush();
  if (options.finish) await writer.finish(options.knownDocuments);
  if (summary.created + summary.updated + summary.withdrawn >= analyzeAfter) {
    // VACUUM cannot run in a transaction block: inside a caller's transaction (an API import,
    // which the events outbox wraps in one) the refresh waits for the commit.
    if (!inTransaction(db)) await refreshStatistics(db);
    else afterCommit(db, () => void refreshStatistics(db).catch(() => undefined));
  }
  return { summary, documents: writer.documents };
}

/**
 * Refreshes the planner's statistics of the security data tables. They decide whether a list
 * walks a sort index or sorts the visible range, and after a bulk import the old ones are
 * wrong by orders of magnitude. On PostgreSQL, VACUUM also marks the pages all-visible, which
 * index-only scans need.
 */
async function refreshStatistics(db: Kysely<MetadataSchema>): Promise<void> {
  const postgres = db.getExecutor().adapter instanceof PostgresAdapter;
  for (const table of securityTables) {
    await (postgres
      ? sql`VACUUM (ANALYZE) ${sql.table(table)}`
      : sql`ANALYZE ${sql.table(table)}`
    ).execute(db);
  }
}

const securityTables = [
  "advisories",
  "advisory_aliases",
  "vulnerabilities",
  "vulnerability_aliases",
  "org_vulnerabilities",
  "org_vulnerability_aliases",
];
