import type { Visibility } from "../lists/index.ts";
import { descendantRange, isWithin } from "../uidp/index.ts";
import type { Trigrams } from "./advisory-trigrams.ts";

/** The part of a search that decides which rows it may see. */
export interface SearchScope {
  visible: Visibility;
  descendantsOf: string;
}

/** The rows of the in-memory search copy, by position in uid order. */
export interface SearchSnapshot {
  version: bigint;
  /** Sorted byte-wise, as the store sorts uids (uids are ASCII). */
  uids: string[];
  texts: string[];
  withdrawn: Uint8Array;
  /** advisory_id of each row. */
  ids: string[];
  /**
   * Row positions in (advisory_id, uid) order; undefined when an id holds a character whose
   * UTF-16 order differs from the store's byte order, so the copy cannot page by id.
   */
  byId: Uint32Array | undefined;
  /** The rows holding each trigram of the texts: a new query checks only those. */
  trigrams: Trigrams;
  /** Match sets already found on this copy, least recently used first. */
  matches: Map<string, SearchMatches>;
}

/** The rows one search selects: `rows[position]` is 1 for each, in uid order. */
export interface SearchMatches {
  rows: Uint8Array;
  count: number;
}

/** The row positions `[start, end)` the scope covers, disjoint. */
export function visibleIntervals(uids: readonly string[], scope: SearchScope): [number, number][] {
  return rangesOf(scope).map((r) => [lowerBound(uids, r), upperBound(uids, r)]);
}

/** An interval of uids; a bound is exclusive unless its flag says otherwise. */
export interface UidRange {
  low: string;
  lowIncluded: boolean;
  high: string;
  highIncluded: boolean;
}

/**
 * The disjoint uid intervals the request covers: each outermost visible scope (the group row
 * itself and its subtree, as the list engine's visibleTo says), cut to uidp.descendants_of.
 */
function rangesOf(request: SearchScope): UidRange[] {
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
export function lowerBound(uids: readonly string[], range: UidRange): number {
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
export function upperBound(uids: readonly string[], range: UidRange): number {
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
