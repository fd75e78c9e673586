import type { Kysely } from "kysely";
import type { Visibility } from "../lists/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { descendantRange, isWithin } from "../uidp/index.ts";
import { readAdvisoryChanges } from "./advisory-changes.ts";

/** Most advisories held in memory; a larger table is counted by the store instead. */
export const maxIndexedAdvisories = 1_000_000;

/** Rows read per query while loading, so a load never holds the event loop for long. */
const loadChunk = 5000;

/**
 * Counts remembered per copy: paging through one search asks the same count on every page, and
 * each count scans every text. The key holds everything the count depends on besides the copy.
 */
const rememberedCounts = 1000;

/** What one `query` count asks: the visible rows, the uidp filters and the substring. */
export interface SearchCount {
  /** Lower-cased, non-empty. */
  query: string;
  showWithdrawn: boolean;
  visible: Visibility;
  descendantsOf: string;
  childrenOf: string;
}

/**
 * Counts the advisories whose search text holds a substring. A substring cannot use an index,
 * so the store reads every visible row for each count (15 ms and more at 100,000 advisories);
 * the same scan over the texts held in memory takes a few milliseconds. The copy is tagged
 * with the advisory change counter and is only used while the counter is unchanged; after an
 * import, counts go to the store until the copy is reloaded in the background.
 */
export interface AdvisorySearchIndex {
  /** The number of matching rows, or undefined when the copy cannot answer this request now. */
  count(request: SearchCount): Promise<bigint | undefined>;
  /** Loads the copy if it is stale; resolves when it is current (or cannot be held). */
  refresh(): Promise<void>;
}

interface Snapshot {
  version: bigint;
  /** Sorted byte-wise, as the store sorts uids (uids are ASCII). */
  uids: string[];
  texts: string[];
  withdrawn: Uint8Array;
  /** Counts already made on this copy, oldest first. */
  counts: Map<string, bigint>;
}

/** An interval of uids; a bound is exclusive unless its flag says otherwise. */
interface UidRange {
  low: string;
  lowIncluded: boolean;
  high: string;
  highIncluded: boolean;
}

/** Creates the index over `db`; it loads on the first count and after each change. */
export function createAdvisorySearchIndex(
  db: Kysely<MetadataSchema>,
  limits: { maxRows?: number } = {},
): AdvisorySearchIndex {
  const maxRows = limits.maxRows ?? maxIndexedAdvisories;
  let snapshot: Snapshot | undefined;
  /** The version found too large to hold: not retried until something changes. */
  let tooLarge: bigint | undefined;
  let loading: Promise<void> | undefined;

  const load = async (version: bigint): Promise<void> => {
    const uids: string[] = [];
    const texts: string[] = [];
    const withdrawn: number[] = [];
    let after: string | undefined;
    for (;;) {
      let query = db
        .selectFrom("advisories")
        .select(["uid", "search_text", "withdrawn_time"])
        .orderBy("uid")
        .limit(loadChunk);
      if (after !== undefined) query = query.where("uid", ">", after);
      const rows = await query.execute();
      for (const row of rows) {
        uids.push(row.uid);
        texts.push(row.search_text);
        withdrawn.push(row.withdrawn_time === null ? 0 : 1);
      }
      if (uids.length > maxRows) {
        snapshot = undefined;
        tooLarge = version;
        return;
      }
      if (rows.length < loadChunk) break;
      after = rows[rows.length - 1].uid;
      // Let requests in: a synchronous driver answers a whole chunk without yielding.
      await new Promise((resolve) => setImmediate(resolve));
    }
    snapshot = { version, uids, texts, withdrawn: Uint8Array.from(withdrawn), counts: new Map() };
  };

  const ensure = (version: bigint): void => {
    if (loading || snapshot?.version === version || tooLarge === version) return;
    loading = load(version).finally(() => {
      loading = undefined;
    });
    // A failed load leaves the store to answer; the next count tries again.
    loading.catch(() => undefined);
  };

  return {
    async count(request) {
      if (request.childrenOf !== "" || (request.visible.childrenOf?.length ?? 0) > 0) {
        return undefined;
      }
      const version = await readAdvisoryChanges(db);
      if (snapshot?.version !== version) {
        ensure(version);
        return undefined;
      }
      return remembered(snapshot, request);
    },
    async refresh() {
      for (;;) {
        const version = await readAdvisoryChanges(db);
        if (snapshot?.version === version || tooLarge === version) return;
        ensure(version);
        await loading?.catch(() => undefined);
        if (!loading && snapshot?.version !== version && tooLarge !== version) return;
      }
    },
  };
}

/** countIn, answered from the copy's remembered counts when the same count was made before. */
function remembered(snapshot: Snapshot, request: SearchCount): bigint {
  const key = JSON.stringify([
    request.query,
    request.showWithdrawn,
    request.descendantsOf,
    [...new Set(request.visible.scopes)].sort(),
  ]);
  const known = snapshot.counts.get(key);
  if (known !== undefined) return known;
  const n = countIn(snapshot, request);
  if (snapshot.counts.size >= rememberedCounts) {
    snapshot.counts.delete(snapshot.counts.keys().next().value as string);
  }
  snapshot.counts.set(key, n);
  return n;
}

/** Counts the rows of `snapshot` the request selects, as the store's query would. */
function countIn(snapshot: Snapshot, request: SearchCount): bigint {
  const { uids, texts, withdrawn } = snapshot;
  const { query, showWithdrawn } = request;
  let n = 0;
  for (const range of rangesOf(request)) {
    const end = upperBound(uids, range);
    for (let i = lowerBound(uids, range); i < end; i++) {
      if ((showWithdrawn || withdrawn[i] === 0) && texts[i].includes(query)) n++;
    }
  }
  return BigInt(n);
}

/**
 * The disjoint uid intervals the request covers: each outermost visible scope (the group row
 * itself and its subtree, as the list engine's visibleTo says), cut to uidp.descendants_of.
 */
function rangesOf(request: SearchCount): UidRange[] {
  const unique = [...new Set(request.visible.scopes)];
  const scopes = unique.filter((s) => !unique.some((t) => t !== s && isWithin(s, t)));
  const ranges: UidRange[] = [];
  for (const scope of scopes) {
    const below = descendantRange(scope);
    ranges.push({ low: scope, lowIncluded: true, high: scope, highIncluded: true });
    ranges.push({ low: below.low, lowIncluded: false, high: below.high, highIncluded: false });
  }
  if (request.descendantsOf === "") return ranges;
  const filter = descendantRange(request.descendantsOf);
  return ranges
    .map((r) => {
      const [low, high] = [[r.low, filter.low].sort()[1], [r.high, filter.high].sort()[0]];
      return {
        low,
        lowIncluded: low === r.low && r.lowIncluded && r.low !== filter.low,
        high,
        highIncluded: high === r.high && r.highIncluded && r.high !== filter.high,
      };
    })
    .filter((r) => r.low < r.high || (r.low === r.high && r.lowIncluded && r.highIncluded));
}

/** The first index whose uid lies above the range's low bound. */
function lowerBound(uids: readonly string[], range: UidRange): number {
  let lo = 0;
  let hi = uids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const below = range.lowIncluded ? uids[mid] < range.low : uids[mid] <= range.low;
    if (below) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The first index whose uid lies above the range's high bound. */
function upperBound(uids: readonly string[], range: UidRange): number {
  let lo = 0;
  let hi = uids.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    const inside = range.highIncluded ? uids[mid] <= range.high : uids[mid] < range.high;
    if (inside) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
