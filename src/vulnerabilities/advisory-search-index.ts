import type { Kysely } from "kysely";
import type { KeysRequest, PageKey, Visibility } from "../lists/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { readAdvisoryChanges } from "./advisory-changes.ts";
import { pageIn } from "./advisory-search-page.ts";
import {
  type SearchMatches,
  type SearchSnapshot,
  visibleIntervals,
} from "./advisory-search-ranges.ts";
import { buildTrigrams, candidatesOf } from "./advisory-trigrams.ts";

/** Most advisories held in memory; a larger table is counted by the store instead. */
export const maxIndexedAdvisories = 1_000_000;

/** Rows read per query while loading, so a load never holds the event loop for long. */
const loadChunk = 5000;

/**
 * Bytes of match sets remembered per copy (one byte a row each): paging through one search asks
 * for the same rows on every page, and finding them can read every text. The key holds everything
 * the matches depend on besides the copy.
 */
const rememberedBytes = 32 * 1024 * 1024;

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
 * the texts held in memory, with their trigrams, answer most in a fraction of a millisecond
 * (a scan of them all takes a few milliseconds). The copy is tagged with the advisory change
 * counter and is only used while the counter is unchanged; after an import, counts go to the
 * store until the copy is reloaded in the background.
 */
export interface AdvisorySearchIndex {
  /**
   * The number of matching rows, or undefined when the copy cannot answer this request now.
   * `changes` gives the request's one read of the advisory change counter (read here without
   * it); it is asked only when the copy could answer.
   */
  count(request: SearchCount, changes?: () => Promise<bigint>): Promise<bigint | undefined>;
  /**
   * The keys of a page of the matching rows in advisory_id or uid order, as the store would find
   * them, or undefined when the copy cannot answer this request now.
   */
  page(
    request: SearchCount & Omit<KeysRequest, keyof SearchCount>,
    changes?: () => Promise<bigint>,
  ): Promise<PageKey[] | undefined>;
  /** Loads the copy if it is stale; resolves when it is current (or cannot be held). */
  refresh(): Promise<void>;
}

type Snapshot = SearchSnapshot;

/**
 * Row positions in (advisory_id, uid) order (rows are in uid order already, and the sort is
 * stable), or undefined when an id holds a character at or above U+D800, where JavaScript's
 * UTF-16 order and the store's byte order can disagree.
 */
function idOrder(ids: readonly string[]): Uint32Array | undefined {
  if (ids.some((id) => /[\uD800-\uFFFF]/.test(id))) return undefined;
  const order = Uint32Array.from(ids.keys());
  return order.sort((a, b) => (ids[a] < ids[b] ? -1 : ids[a] > ids[b] ? 1 : a - b));
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
    const ids: string[] = [];
    let after: string | undefined;
    for (;;) {
      let query = db
        .selectFrom("advisories")
        .select(["uid", "search_text", "withdrawn_time", "advisory_id"])
        .orderBy("uid")
        .limit(loadChunk);
      if (after !== undefined) query = query.where("uid", ">", after);
      const rows = await query.execute();
      for (const row of rows) {
        uids.push(row.uid);
        texts.push(row.search_text);
        withdrawn.push(row.withdrawn_time === null ? 0 : 1);
        ids.push(row.advisory_id);
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
    const trigrams = await buildTrigrams(texts);
    snapshot = {
      version,
      uids,
      texts,
      withdrawn: Uint8Array.from(withdrawn),
      ids,
      byId: idOrder(ids),
      trigrams,
      matches: new Map(),
    };
  };

  const ensure = (version: bigint): void => {
    if (loading || snapshot?.version === version || tooLarge === version) return;
    loading = load(version).finally(() => {
      loading = undefined;
    });
    // A failed load leaves the store to answer; the next count tries again.
    loading.catch(() => undefined);
  };

  /** The copy, when it can answer the request: current, and no children_of filter. */
  const current = async (
    request: SearchCount,
    changes = () => readAdvisoryChanges(db),
  ): Promise<Snapshot | undefined> => {
    if (request.childrenOf !== "" || (request.visible.childrenOf?.length ?? 0) > 0) {
      return undefined;
    }
    const version = await changes();
    if (snapshot?.version === version) return snapshot;
    ensure(version);
    return undefined;
  };

  return {
    async count(request, changes) {
      const copy = await current(request, changes);
      return copy && BigInt(matchesOf(copy, request).count);
    },
    async page(request, changes) {
      const copy = await current(request, changes);
      return copy && pageIn(copy, matchesOf(copy, request).rows, request);
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

/** The rows the request selects, remembered on the copy for the requests that follow. */
export function matchesOf(snapshot: Snapshot, request: SearchCount): SearchMatches {
  const key = JSON.stringify([
    request.query,
    request.showWithdrawn,
    request.descendantsOf,
    [...new Set(request.visible.scopes)].sort(),
  ]);
  const known = snapshot.matches.get(key);
  if (known) {
    // Most recently used last: the oldest go first.
    snapshot.matches.delete(key);
    snapshot.matches.set(key, known);
    return known;
  }
  const found = matchIn(snapshot, request);
  const limit = Math.max(1, Math.floor(rememberedBytes / Math.max(1, snapshot.uids.length)));
  while (snapshot.matches.size >= limit) {
    snapshot.matches.delete(snapshot.matches.keys().next().value as string);
  }
  snapshot.matches.set(key, found);
  return found;
}

/**
 * The rows the store's query would select, in uid order. A query of 3 or more characters checks
 * only the visible rows holding its rarest trigram (about 0.1 ms instead of 5–7 for a typical
 * new query at 100,000 advisories); a shorter one reads every visible text.
 */
function matchIn(snapshot: Snapshot, request: SearchCount): SearchMatches {
  const { uids, texts, withdrawn } = snapshot;
  const { query, showWithdrawn } = request;
  const rows = new Uint8Array(uids.length);
  let count = 0;
  const candidates = candidatesOf(snapshot.trigrams, query);
  // Ascending, so one walk of the candidates meets each interval in turn.
  const intervals = visibleIntervals(uids, request).sort((x, y) => x[0] - y[0]);
  let k = 0;
  for (const [start, end] of intervals) {
    if (candidates === undefined) {
      for (let i = start; i < end; i++) {
        if ((showWithdrawn || withdrawn[i] === 0) && texts[i].includes(query)) {
          rows[i] = 1;
          count++;
        }
      }
      continue;
    }
    // A narrow scope skips most candidates: find its first one by bisection, not one by one.
    k = firstAtLeast(candidates, start, k);
    for (; k < candidates.length && candidates[k] < end; k++) {
      const i = candidates[k];
      if ((showWithdrawn || withdrawn[i] === 0) && texts[i].includes(query)) {
        rows[i] = 1;
        count++;
      }
    }
  }
  return { rows, count };
}

/** The first index at or after `from` whose value is at least `value` (`values` ascending). */
function firstAtLeast(values: Uint32Array, value: number, from: number): number {
  let lo = from;
  let hi = values.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid] < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
