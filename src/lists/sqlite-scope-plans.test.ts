import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { type CompiledQuery, Kysely, SqliteDialect } from "kysely";
import { createMetadataStore, type MetadataSchema } from "../store/metadata/index.ts";
import { nodeSqliteDatabase } from "../store/metadata/node-sqlite-database.ts";
import { createListEngine } from "./list-engine.ts";
import type { ListSpec } from "./list-query.ts";
import { createPageTokens } from "./page-token.ts";

const org = "0123456789abcdef0123456789abcdef01234567";
/** Holds 4,000 identities, named to sort after every other team's. */
const big = `${org}/1000000000000000`;
/** Holds 600 identities, named to sort before everyone else's. */
const tenth = `${org}/2000000000000000`;
/** Holds 40 identities. */
const small = `${org}/3000000000000000`;

const spec: ListSpec<"identities"> = {
  table: "identities",
  domain: "iam.lading.dev",
  fields: {
    name: { column: "name" },
    created_at: { column: "create_time" },
  },
  defaultField: "name",
};

function insertIdentities(database: DatabaseSync, team: string, count: number, prefix: string) {
  const insert = database.prepare(
    `INSERT INTO identities (uid, parent_uid, name, description, issuer, subject, create_time, update_time)
     VALUES (?, ?, ?, '', '', '', ?, ?)`,
  );
  for (let i = 0; i < count; i++) {
    const time = `2026-01-01T00:00:${String(i).padStart(6, "0")}Z`;
    insert.run(`${team}/${i.toString(16).padStart(16, "0")}`, team, `${prefix}-${i}`, time, time);
  }
}

/**
 * Node's SQLite has no STAT4 histograms, so only the list engine knows how much of the table a
 * uid range holds: these are the plans of the pages it builds on SQLite.
 */
describe("list pages on SQLite, by the share of the table the scope holds", () => {
  let dir: string;
  let raw: DatabaseSync;
  let db: Kysely<MetadataSchema>;
  const queries: CompiledQuery[] = [];
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "lading-scope-plans-"));
    const store = createMetadataStore({ dataDir: dir });
    await store.migrate();
    await store.close();
    raw = new DatabaseSync(join(dir, "lading.db"));
    raw.exec("BEGIN");
    insertIdentities(raw, big, 4000, "z");
    insertIdentities(raw, tenth, 600, "a");
    insertIdentities(raw, small, 40, "m");
    raw.exec("COMMIT");
    raw.exec("ANALYZE");
    db = new Kysely<MetadataSchema>({
      dialect: new SqliteDialect({ database: nodeSqliteDatabase(raw) }),
      log: (event) => {
        if (event.level === "query") queries.push(event.query);
      },
    });
  });
  after(async () => {
    await db?.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  /** A page of `team`'s identities, its rows' names and the plan of the query that found it. */
  /** By default `team` is named by uidp.descendants_of, the caller seeing the organisation. */
  async function page(
    team: string,
    orderBy: string,
    skip: number,
    by: "descendants" | "children" | "visibility" = "descendants",
    filters: Record<string, string> = {},
  ) {
    queries.length = 0;
    const result = await createListEngine(db, createPageTokens("secret")).list(spec, {
      parameters: {
        uidp: {
          descendantsOf: by === "descendants" ? team : "",
          childrenOf: by === "children" ? team : "",
        },
        pageSize: 20,
        pageToken: "",
        orderBy,
        skip,
      },
      filters,
      visible: { scopes: [by === "visibility" ? team : org] },
      caller: "",
    });
    const found = queries.find((q) => /order by/i.test(q.sql));
    assert.ok(found, "the page is found by an ordered query");
    const plan = raw
      .prepare(`EXPLAIN QUERY PLAN ${found.sql}`)
      .all(...(found.parameters as SQLInputValue[])) as { detail: string }[];
    return {
      names: result.rows.map((r) => r.name),
      total: result.totalCount,
      plan: plan.map((r) => r.detail).join("; "),
    };
  }

  const names = (prefix: string, count: number) =>
    Array.from({ length: count }, (_, i) => `${prefix}-${i}`).sort();

  it("walks the sort index for a scope that holds most of the table", async () => {
    const first = await page(big, "name", 0);
    assert.match(first.plan, /SCAN identities USING INDEX identities_name/);
    assert.doesNotMatch(first.plan, /TEMP B-TREE/);
    assert.deepEqual(first.names, names("z", 4000).slice(0, 20));
    assert.equal(first.total, 4000n);

    const skipped = await page(big, "name", 2000);
    assert.match(skipped.plan, /SCAN identities USING COVERING INDEX identities_name/);
    assert.doesNotMatch(skipped.plan, /TEMP B-TREE/);
    assert.deepEqual(skipped.names, names("z", 4000).slice(2000, 2020));

    const newest = await page(big, "created_at desc", 0);
    assert.match(newest.plan, /SCAN identities USING INDEX identities_create/);
    assert.doesNotMatch(newest.plan, /TEMP B-TREE/);
    assert.deepEqual(
      newest.names,
      Array.from({ length: 20 }, (_, i) => `z-${3999 - i}`),
    );
  });

  it("reads a small scope's uid range and sorts it", async () => {
    for (const [orderBy, skip] of [
      ["name", 0],
      ["name", 10],
      ["created_at desc", 0],
    ] as const) {
      const { plan, names: found } = await page(small, orderBy, skip);
      assert.match(
        plan,
        /SEARCH identities USING (COVERING )?INDEX sqlite_autoindex_identities_1 \(uid>\? AND uid<\?\)/,
      );
      assert.match(plan, /TEMP B-TREE/);
      assert.equal(found.length, 20);
    }
    assert.deepEqual((await page(small, "name", 0)).names, names("m", 40).slice(0, 20));
  });

  it("finds a filtered page's rows by the filter's index within a large scope", async () => {
    const named = await page(big, "created_at desc", 0, "descendants", { name: "z-5" });
    assert.match(named.plan, /SEARCH identities USING INDEX identities_name \(name=\?\)/);
    assert.deepEqual(named.names, ["z-5"]);
    assert.equal(named.total, 1n);
  });

  it("lists a parent's children the same way", async () => {
    const most = await page(big, "created_at desc", 0, "children");
    assert.match(most.plan, /SCAN identities USING INDEX identities_create/);
    assert.doesNotMatch(most.plan, /TEMP B-TREE/);
    assert.equal(most.names[0], "z-3999");
    assert.equal(most.total, 4000n);
    const few = await page(small, "name", 0, "children");
    assert.match(few.plan, /SEARCH identities USING INDEX identities_parent \(parent_uid=\?\)/);
    assert.deepEqual(few.names, names("m", 40).slice(0, 20));
  });

  it("lists what a caller may see the same way", async () => {
    const most = await page(big, "name", 0, "visibility");
    assert.match(most.plan, /SCAN identities USING INDEX identities_name/);
    assert.doesNotMatch(most.plan, /TEMP B-TREE/);
    assert.deepEqual(most.names, names("z", 4000).slice(0, 20));
    const few = await page(small, "name", 0, "visibility");
    assert.match(few.plan, /INDEX sqlite_autoindex_identities_1 \(uid>\? AND uid<\?\)/);
    assert.deepEqual(few.names, names("m", 40).slice(0, 20));
  });

  it("keeps the range for a tenth of the table whose other rows sort first", async () => {
    // Walking the name index would pass every other team's rows before this team's first one.
    const { plan, names: found } = await page(tenth, "name desc", 0);
    assert.match(plan, /SEARCH identities USING INDEX sqlite_autoindex_identities_1/);
    assert.deepEqual(found, names("a", 600).reverse().slice(0, 20));
  });
});
