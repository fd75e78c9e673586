import type { KeysRequest, PageKey } from "../lists/index.ts";
import type { SearchSnapshot } from "./advisory-search-ranges.ts";

/** What a page walk needs of the list engine's request. */
export type SearchPage = Pick<KeysRequest, "column" | "desc" | "after" | "skip" | "limit">;

/**
 * The keys of one page of the matching rows (`matches`, by position in uid order), walked in
 * memory in (column, uid) order: what the store would answer, without reading every row it
 * skips. A substring that few rows hold makes the store walk the whole sort index for one
 * page; here the walk reads one byte a row. Undefined for an order the copy does not hold.
 */
export function pageIn(
  snapshot: SearchSnapshot,
  matches: Uint8Array,
  request: SearchPage,
): PageKey[] | undefined {
  const { uids, ids } = snapshot;
  const byUid = request.column === "uid";
  const order = byUid ? undefined : request.column === "advisory_id" ? snapshot.byId : undefined;
  if (!byUid && !order) return undefined;
  const keyOf = (row: number) => (byUid ? uids[row] : ids[row]);
  const n = uids.length;
  const rowAt = (position: number) => (order ? order[position] : position);
  const step = request.desc ? -1 : 1;
  let position = request.desc ? n - 1 : 0;
  if (request.after) {
    position = firstAfter(n, rowAt, keyOf, uids, request.after, request.desc);
  }
  const found: PageKey[] = [];
  let skipped = 0;
  for (; position >= 0 && position < n; position += step) {
    const row = rowAt(position);
    if (matches[row] === 0) continue;
    if (skipped < request.skip) {
      skipped++;
      continue;
    }
    found.push({ uid: uids[row], sort_key: keyOf(row) });
    if (found.length >= request.limit) break;
  }
  return found;
}

/**
 * The first position past `after` in the walk's direction: a binary search over positions,
 * whose (key, uid) pairs ascend.
 */
function firstAfter(
  n: number,
  rowAt: (position: number) => number,
  keyOf: (row: number) => string,
  uids: readonly string[],
  after: readonly [string, string],
  desc: boolean,
): number {
  const [key, uid] = after;
  const beyond = (position: number) => {
    const row = rowAt(position);
    const k = keyOf(row);
    return k > key || (k === key && uids[row] > uid);
  };
  // lo: the first position whose pair lies above `after`.
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (beyond(mid)) hi = mid;
    else lo = mid + 1;
  }
  if (!desc) return lo;
  // Walking down: the last position below `after` (skip one equal to it).
  let below = lo - 1;
  if (below >= 0) {
    const row = rowAt(below);
    if (keyOf(row) === key && uids[row] === uid) below--;
  }
  return below;
}
