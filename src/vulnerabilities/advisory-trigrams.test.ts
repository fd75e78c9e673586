import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { seededRandom } from "../../test/support/advisory-documents.ts";
import { isWithin } from "../uidp/index.ts";
import { matchesOf, type SearchCount } from "./advisory-search-index.ts";
import type { SearchSnapshot } from "./advisory-search-ranges.ts";
import { buildTrigrams, candidatesOf } from "./advisory-trigrams.ts";

/**
 * Few enough symbols that most trigrams recur across rows, enough that some never occur. "😀"
 * is two UTF-16 code units, so texts and queries also split surrogate pairs.
 */
const symbols = ["a", "b", "c", "d", "e", "f", "-", "1", "2", "\n", "é", "ß", "日", "😀"];

/** A seeded world of groups and rows: deterministic, and small enough to check by brute force. */
function world(seed: number) {
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  const hex = (n: number) =>
    Array.from({ length: n }, () => Math.floor(random() * 16).toString(16)).join("");
  const textOf = (length: number) => Array.from({ length }, () => pick(symbols)).join("");
  const roots = [hex(40), hex(40), hex(40)];
  const groups = [...roots, ...roots.flatMap((r) => [`${r}/${hex(16)}`, `${r}/${hex(16)}`])];
  // Advisories sit under groups; a few rows are groups themselves, as a scope's own row.
  const uids = [
    ...Array.from({ length: 400 }, () => `${pick(groups)}/${hex(16)}`),
    ...groups.filter(() => random() < 0.5),
  ].sort();
  const texts = uids.map(() => textOf(Math.floor(random() ** 2 * 40)));
  const withdrawn = Uint8Array.from(uids, () => (random() < 0.2 ? 1 : 0));
  return { random, pick, textOf, groups, uids, texts, withdrawn };
}

/** Today's rule written out row by row: visible, not withdrawn unless asked, holds the query. */
function bruteForce(
  uids: readonly string[],
  texts: readonly string[],
  withdrawn: Uint8Array,
  request: SearchCount,
): number[] {
  const { query, showWithdrawn, visible, descendantsOf } = request;
  return uids.flatMap((uid, i) =>
    visible.scopes.some((s) => isWithin(uid, s)) &&
    (descendantsOf === "" || uid.startsWith(`${descendantsOf}/`)) &&
    (showWithdrawn || withdrawn[i] === 0) &&
    texts[i].includes(query)
      ? [i]
      : [],
  );
}

describe("advisory trigrams", () => {
  it("lists exactly the rows holding each trigram, ascending, once each", async () => {
    const { texts } = world(1);
    const trigrams = await buildTrigrams(texts);
    const all = new Set(
      texts.flatMap((t) => Array.from({ length: t.length }, (_, i) => t.slice(i, i + 3))),
    );
    for (const trigram of [...all].filter((t) => t.length === 3)) {
      const expected = texts.flatMap((t, i) => (t.includes(trigram) ? [i] : []));
      assert.deepEqual([...(candidatesOf(trigrams, trigram) ?? [])], expected, trigram);
    }
    assert.equal(trigrams.slots.size, [...all].filter((t) => t.length === 3).length);
    assert.equal(candidatesOf(trigrams, "ab"), undefined, "too short to have a trigram");
    assert.equal(candidatesOf(trigrams, ""), undefined);
    assert.ok((candidatesOf(trigrams, "abc")?.length ?? 0) > 0);
    assert.deepEqual([...(candidatesOf(trigrams, "abcz") ?? [1])], [], "'bcz' is in no row");
  });

  it("indexes text of any length, and holds nothing for no text", async () => {
    const trigrams = await buildTrigrams(["", "a", "ab", "aaaa", "xaaa", "😀😀"]);
    assert.deepEqual([...(candidatesOf(trigrams, "aaa") ?? [])], [3, 4]);
    assert.deepEqual([...(candidatesOf(trigrams, "aaaa") ?? [])], [3, 4], "its rarest trigram");
    assert.deepEqual([...(candidatesOf(trigrams, "😀😀") ?? [])], [5]);
    assert.deepEqual([...(candidatesOf(trigrams, "😀\uDE00") ?? [1])], [], "a lone half");
    const empty = await buildTrigrams([]);
    assert.deepEqual([...(candidatesOf(empty, "abc") ?? [1])], []);
  });

  it("selects exactly what a scan selects, for any query, scope and withdrawn flag", async () => {
    const { random, pick, textOf, groups, uids, texts, withdrawn } = world(7);
    const snapshot: SearchSnapshot = {
      version: 1n,
      uids,
      texts,
      withdrawn,
      ids: uids,
      byId: undefined,
      trigrams: await buildTrigrams(texts),
      matches: new Map(),
    };
    const seen = { short: 0, three: 0, longer: 0, noneDespiteTrigrams: 0, absentTrigram: 0 };
    for (let n = 0; n < 3000; n++) {
      const text = pick(texts);
      const start = Math.floor(random() * text.length);
      const kind = random();
      // Mostly pieces of real texts (they match), else random strings (mostly they do not).
      const query =
        kind < 0.6
          ? text.slice(start, start + 1 + Math.floor(random() * 8))
          : kind < 0.9
            ? textOf(1 + Math.floor(random() * 7))
            : `${textOf(1)}z${textOf(1)}`;
      if (query === "") continue;
      const request: SearchCount = {
        query,
        showWithdrawn: random() < 0.5,
        // Scopes in any order, sometimes none, sometimes one inside another.
        visible: { scopes: groups.filter(() => random() < 0.35) },
        descendantsOf: random() < 0.7 ? "" : pick(groups),
        childrenOf: "",
      };
      const expected = bruteForce(uids, texts, withdrawn, request);
      const found = matchesOf(snapshot, request);
      const rows = [...found.rows.keys()].filter((i) => found.rows[i] === 1);
      assert.deepEqual(rows, expected, JSON.stringify(request));
      assert.equal(found.count, expected.length);
      const candidates = candidatesOf(snapshot.trigrams, query);
      if (query.length < 3) seen.short += expected.length > 0 ? 1 : 0;
      else if (candidates?.length === 0) seen.absentTrigram++;
      else if (!texts.some((t) => t.includes(query))) seen.noneDespiteTrigrams++;
      else if (expected.length > 0) seen[query.length === 3 ? "three" : "longer"]++;
    }
    for (const [what, times] of Object.entries(seen)) {
      assert.ok(times >= 50, `${what}: ${times} cases, too few to prove anything`);
    }
  });
});
