import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Kysely, sql } from "kysely";
import { generateAdvisoryDocuments } from "../../test/support/advisory-documents.ts";
import { createTestStore, storeKinds, type TestStore } from "../../test/support/stores.ts";
import {
  createMetadataStore,
  type MetadataSchema,
  type MetadataStore,
} from "../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";
import { createAdvisorySearchIndex, type SearchCount } from "./advisory-search-index.ts";
import { buildTrigrams, candidatesOf } from "./advisory-trigrams.ts";
import { importFeed } from "./import/import-feed.ts";
import { importFormats } from "./import/import-formats.ts";
import { ensurePublicAdvisoriesGroup } from "./public-advisories.ts";

/** Every matching row in the store's (column, uid) order, with the same rules as storeCount. */
async function storeOrder(
  db: Kysely<MetadataSchema>,
  r: SearchCount,
  column: "uid" | "advisory_id",
  desc: boolean,
): Promise<{ uid: string; sort_key: string }[]> {
  let q = db
    .selectFrom("advisories")
    .select(["uid", `${column} as sort_key`])
    .where((eb) =>
      eb.or(
        r.visible.scopes.flatMap((s) => [
          eb("uid", "=", s),
          eb.and([eb("uid", ">", `${s}/`), eb("uid", "<", `${s}0`)]),
        ]),
      ),
    )
    .where(sql<boolean>`search_text like ${`%${r.query.replace(/[%_\\]/g, "\\$&")}%`} escape '\\'`)
    .orderBy(column, desc ? "desc" : "asc")
    .orderBy("uid", desc ? "desc" : "asc");
  if (!r.showWithdrawn) q = q.where("withdrawn_time", "is", null);
  if (r.descendantsOf !== "") {
    q = q.where("uid", ">", `${r.descendantsOf}/`).where("uid", "<", `${r.descendantsOf}0`);
  }
  return (await q.execute()) as { uid: string; sort_key: string }[];
}

/** What the store says, with the list engine's visibility rule written out once more. */
async function storeCount(db: Kysely<MetadataSchema>, r: SearchCount): Promise<bigint> {
  let q = db
    .selectFrom("advisories")
    .select((eb) => eb.fn.countAll<string | number>().as("n"))
    .where((eb) =>
      eb.or(
        r.visible.scopes.flatMap((s) => [
          eb("uid", "=", s),
          eb.and([eb("uid", ">", `${s}/`), eb("uid", "<", `${s}0`)]),
        ]),
      ),
    )
    .where(sql<boolean>`search_text like ${`%${r.query.replace(/[%_\\]/g, "\\$&")}%`} escape '\\'`);
  if (!r.showWithdrawn) q = q.where("withdrawn_time", "is", null);
  if (r.descendantsOf !== "") {
    q = q.where("uid", ">", `${r.descendantsOf}/`).where("uid", "<", `${r.descendantsOf}0`);
  }
  return BigInt((await q.executeTakeFirstOrThrow()).n);
}

for (const kind of storeKinds) {
  describe(`advisory search index [${kind}]`, () => {
    let location: TestStore;
    let store: MetadataStore;
    const org = newRootUid();
    const team = newChildUid(org);
    const other = newRootUid();
    let publicGroup = "";

    const load = (parentUid: string, count: number, seed: number) =>
      importFeed(
        store.db,
        { parentUid, source: "test", author: "test" },
        importFormats.advisories.parser,
        generateAdvisoryDocuments(count, seed).map((d) => ({
          file: `${d.name}.advisories.yaml`,
          text: d.text,
        })),
        { finish: true },
      );

    before(async () => {
      location = await createTestStore(kind);
      store = createMetadataStore(location.options);
      await store.migrate();
      publicGroup = await ensurePublicAdvisoriesGroup(store.db);
      await load(publicGroup, 300, 1);
      await load(org, 120, 2);
      await load(team, 80, 3);
      await load(other, 90, 4);
      // Withdraw some: a re-import of fewer documents withdraws the rest of the source.
      await load(team, 40, 3);
    });
    after(async () => {
      await store.close();
      await location.drop();
    });

    it("counts exactly what the store counts, for scopes, subtrees and withdrawn rows", async () => {
      const index = createAdvisorySearchIndex(store.db);
      await index.refresh();
      const cases: Omit<SearchCount, "query">[] = [
        {
          visible: { scopes: [publicGroup] },
          descendantsOf: "",
          childrenOf: "",
          showWithdrawn: false,
        },
        {
          visible: { scopes: [org, publicGroup] },
          descendantsOf: "",
          childrenOf: "",
          showWithdrawn: false,
        },
        {
          visible: { scopes: [org, team] },
          descendantsOf: "",
          childrenOf: "",
          showWithdrawn: true,
        },
        { visible: { scopes: [org] }, descendantsOf: team, childrenOf: "", showWithdrawn: false },
        { visible: { scopes: [team] }, descendantsOf: org, childrenOf: "", showWithdrawn: true },
        { visible: { scopes: [other] }, descendantsOf: org, childrenOf: "", showWithdrawn: false },
        { visible: { scopes: [] }, descendantsOf: "", childrenOf: "", showWithdrawn: false },
      ];
      let nonZero = 0;
      for (const query of ["cve-", "cve-2021", "openssl", "go-module", "ghsa", "zz-none", "-"]) {
        for (const c of cases) {
          const request = { ...c, query };
          const expected = await storeCount(store.db, request);
          if (expected > 0n) nonZero++;
          assert.equal(await index.count(request), expected, `${query} in ${JSON.stringify(c)}`);
        }
      }
      assert.ok(nonZero > 20, "the cases must match rows, or they prove nothing");
      const withdrawn = { visible: { scopes: [team] }, descendantsOf: "", childrenOf: "" };
      assert.ok(
        (await storeCount(store.db, { ...withdrawn, query: "cve-", showWithdrawn: true })) >
          (await storeCount(store.db, { ...withdrawn, query: "cve-", showWithdrawn: false })),
        "some matching advisories must be withdrawn, or show_withdrawn proves nothing",
      );
    });

    it("finds through trigrams what the store finds: any length, no match, non-ASCII", async () => {
      // Some rows in every scope get non-ASCII text, put back afterwards: the generator
      // writes ASCII only. The change counter is left alone, so no other index sees it.
      const originals = await store.db
        .selectFrom("advisories")
        .select(["uid", "search_text"])
        .orderBy("uid")
        .execute();
      const changed = originals.filter((_, i) => i % 7 === 0);
      const extras = ["\nñandú-日本語-😀", "\nstraße-ü", "\n😀😀-é"];
      try {
        for (const [i, row] of changed.entries()) {
          await store.db
            .updateTable("advisories")
            .set({ search_text: `${row.search_text}${extras[i % extras.length]}` })
            .where("uid", "=", row.uid)
            .execute();
        }
        const index = createAdvisorySearchIndex(store.db);
        await index.refresh();
        const texts = (
          await store.db.selectFrom("advisories").select("search_text").orderBy("uid").execute()
        ).map((r) => r.search_text);
        const trigrams = await buildTrigrams(texts);
        // Every trigram of these is in some row, yet no row holds them whole.
        for (const query of ["2018-2025", "ghsa-cve-"]) {
          assert.ok((candidatesOf(trigrams, query)?.length ?? 0) > 0, query);
          assert.ok(!texts.some((t) => t.includes(query)), query);
        }
        const queries = [
          ...["-", "c", "ñ", "😀", "cv", "-2", "日本", "ß-"],
          ...["cve", "-20", "ssl", "ndú", "😀😀", "aße"],
          ...["cve-2021", "openssl", "ñandú-日本語", "😀-é", "straße-ü"],
          ...["2018-2025", "ghsa-cve-", "zz-none", "日本人"],
        ];
        const scopes: Omit<SearchCount, "query">[] = [
          {
            visible: { scopes: [publicGroup, org] },
            descendantsOf: "",
            childrenOf: "",
            showWithdrawn: false,
          },
          { visible: { scopes: [team] }, descendantsOf: "", childrenOf: "", showWithdrawn: true },
          { visible: { scopes: [org] }, descendantsOf: team, childrenOf: "", showWithdrawn: false },
          {
            visible: { scopes: [other, team] },
            descendantsOf: "",
            childrenOf: "",
            showWithdrawn: true,
          },
        ];
        let nonZero = 0;
        for (const query of queries) {
          for (const scope of scopes) {
            const request = { ...scope, query };
            const expected = await storeOrder(store.db, request, "uid", false);
            if (expected.length > 0) nonZero++;
            const label = `${query} in ${JSON.stringify(scope)}`;
            assert.equal(await index.count(request), BigInt(expected.length), label);
            const page = { column: "uid", desc: false, after: undefined, skip: 0, limit: 10_000 };
            assert.deepEqual(await index.page({ ...request, ...page }), expected, label);
          }
        }
        assert.ok(nonZero > 50, "the cases must match rows, or they prove nothing");
      } finally {
        for (const row of changed) {
          await store.db
            .updateTable("advisories")
            .set({ search_text: row.search_text })
            .where("uid", "=", row.uid)
            .execute();
        }
      }
    });

    it("remembers a count only for the same query, scopes, subtree and withdrawn flag", async () => {
      const index = createAdvisorySearchIndex(store.db);
      await index.refresh();
      const base: SearchCount = {
        query: "cve-",
        showWithdrawn: false,
        visible: { scopes: [org, publicGroup] },
        descendantsOf: "",
        childrenOf: "",
      };
      const variants: SearchCount[] = [
        base,
        { ...base, showWithdrawn: true },
        { ...base, descendantsOf: team },
        { ...base, visible: { scopes: [org] } },
        { ...base, query: "cve-2021" },
        // The same scopes named in another order and twice: the same count.
        { ...base, visible: { scopes: [publicGroup, org, org] } },
      ];
      const expected = await Promise.all(variants.map((v) => storeCount(store.db, v)));
      assert.equal(new Set(expected.slice(0, 5).map(String)).size, 5, "the variants must differ");
      // Twice over, in both orders: the second pass answers from what the first remembered.
      for (const order of [variants, [...variants].reverse(), variants]) {
        for (const v of order) {
          assert.equal(await index.count(v), expected[variants.indexOf(v)], JSON.stringify(v));
        }
      }
    });

    it("pages exactly as the store orders, in both orders and directions, by skip and by cursor", async () => {
      const index = createAdvisorySearchIndex(store.db);
      await index.refresh();
      const scopes: Omit<SearchCount, "query">[] = [
        {
          visible: { scopes: [org, publicGroup] },
          descendantsOf: "",
          childrenOf: "",
          showWithdrawn: false,
        },
        {
          visible: { scopes: [org, team] },
          descendantsOf: "",
          childrenOf: "",
          showWithdrawn: true,
        },
        { visible: { scopes: [org] }, descendantsOf: team, childrenOf: "", showWithdrawn: false },
        { visible: { scopes: [other] }, descendantsOf: org, childrenOf: "", showWithdrawn: false },
      ];
      let pages = 0;
      for (const query of ["cve-", "cve-2021", "openssl", "zz-none"]) {
        for (const scope of scopes) {
          for (const column of ["advisory_id", "uid"] as const) {
            for (const desc of [false, true]) {
              const request = { ...scope, query };
              const all = await storeOrder(store.db, request, column, desc);
              const ask = (
                after: readonly [string, string] | undefined,
                skip: number,
                limit: number,
              ) => index.page({ ...request, column, desc, after, skip, limit });
              const label = `${query} ${column} ${desc ? "desc" : "asc"} ${JSON.stringify(scope)}`;
              assert.deepEqual(await ask(undefined, 3, 7), all.slice(3, 10), `skip: ${label}`);
              // Walk every page by cursor, as page tokens do.
              const walked: { uid: string; sort_key: string }[] = [];
              let after: readonly [string, string] | undefined;
              for (;;) {
                const page = await ask(after, 0, 11);
                assert.ok(page, "a current copy answers");
                walked.push(...page);
                pages++;
                if (page.length < 11) break;
                const last = page[page.length - 1];
                after = [last.sort_key, last.uid];
              }
              assert.deepEqual(walked, all, `cursor: ${label}`);
            }
          }
        }
      }
      assert.ok(pages > 100, "the walks must cross many pages, or they prove little");
      assert.equal(
        await index.page({
          ...scopes[0],
          query: "cve-",
          column: "name",
          desc: false,
          after: undefined,
          skip: 0,
          limit: 5,
        }),
        undefined,
        "an order the copy does not hold is left to the store",
      );
    });

    it("answers nothing once advisories change, and again after it reloads", async () => {
      const index = createAdvisorySearchIndex(store.db);
      await index.refresh();
      const request: SearchCount = {
        query: "cve-",
        showWithdrawn: false,
        visible: { scopes: [other] },
        descendantsOf: "",
        childrenOf: "",
      };
      const before = await index.count(request);
      assert.ok(before !== undefined && before > 0n);
      await load(other, 150, 4);
      assert.equal(await index.count(request), undefined, "a stale copy must not answer");
      await index.refresh();
      const now = await index.count(request);
      assert.equal(now, await storeCount(store.db, request));
      assert.ok(now !== undefined && now > before);
    });

    it("leaves children_of filters and over-large tables to the store", async () => {
      const index = createAdvisorySearchIndex(store.db);
      await index.refresh();
      const base: SearchCount = {
        query: "cve-",
        showWithdrawn: false,
        visible: { scopes: [org] },
        descendantsOf: "",
        childrenOf: "",
      };
      assert.equal(await index.count({ ...base, childrenOf: org }), undefined);
      assert.equal(
        await index.count({ ...base, visible: { scopes: [], childrenOf: [org] } }),
        undefined,
      );
      const small = createAdvisorySearchIndex(store.db, { maxRows: 10 });
      await small.refresh();
      assert.equal(await small.count(base), undefined);
    });
  });
}
