import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { createMetadataStore } from "./metadata-store.ts";
import { keepStatistics } from "./sqlite-statistics.ts";

const team = "0123456789abcdef0123456789abcdef01234567/0123456789abcdef";
const emptyTeam = "0123456789abcdef0123456789abcdef01234567/1123456789abcdef";

/**
 * The query plan of a page of `of`'s identities by name past a skip, with the uid range
 * written `uid` (as for a scope that holds little of the table) or `+uid` (as the list engine
 * writes it for a scope that holds at least half: src/lists/list-engine.ts).
 */
function plan(database: DatabaseSync, uid: "uid" | "+uid", of = team): string {
  const rows = database
    .prepare(
      `EXPLAIN QUERY PLAN SELECT uid, name AS sort_key FROM identities
       WHERE ${uid} > ? AND ${uid} < ? ORDER BY name, uid LIMIT 51 OFFSET 2500`,
    )
    .all(`${of}/`, `${of}0`) as { detail: string }[];
  return rows.map((r) => r.detail).join("; ");
}

/** The number of identities the planner believes there are, from sqlite_stat1. */
function plannedRows(database: DatabaseSync): number | undefined {
  const row = database
    .prepare("SELECT stat FROM sqlite_stat1 WHERE tbl = 'identities' AND idx = 'identities_name'")
    .get() as { stat: string } | undefined;
  return row && Number(row.stat.split(" ")[0]);
}

function insertIdentities(database: DatabaseSync, count: number): void {
  const insert = database.prepare(
    `INSERT INTO identities (uid, parent_uid, name, description, issuer, subject, create_time, update_time)
     VALUES (?, ?, ?, '', '', '', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`,
  );
  database.exec("BEGIN");
  for (let i = 0; i < count; i++) {
    insert.run(`${team}/${i.toString(16).padStart(16, "0")}`, team, `identity-${i}`);
  }
  database.exec("COMMIT");
}

describe("SQLite statistics", () => {
  let dir: string;
  let database: DatabaseSync;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), "lading-stats-"));
    const store = createMetadataStore({ dataDir: dir });
    await store.migrate();
    await store.close();
    database = new DatabaseSync(join(dir, "lading.db"));
  });
  after(() => {
    database?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it("refreshes after a bulk of writes, so a list page walks the sort index", () => {
    const keeper = keepStatistics(database, { intervalMs: 3_600_000, changes: 1000 });
    try {
      insertIdentities(database, 5000);
      assert.equal(plannedRows(database), undefined, "the planner has not seen the rows yet");
      assert.equal(keeper.check(), true);
      assert.equal(plannedRows(database), 5000);
      // Node's SQLite has no STAT4 histograms, so even fresh statistics do not tell a uid range
      // that holds every row from one that holds none: both are taken and sorted.
      assert.match(plan(database, "uid"), /TEMP B-TREE/);
      assert.equal(plan(database, "uid"), plan(database, "uid", emptyTeam));
      // The list engine knows from its counters that this range holds the whole table, and
      // writes it so that the page walks the sort index.
      assert.match(plan(database, "+uid"), /SCAN identities USING COVERING INDEX identities_name/);
      assert.doesNotMatch(plan(database, "+uid"), /TEMP B-TREE/);
    } finally {
      keeper.stop();
    }
  });

  it("leaves the statistics alone while little changes, and refreshes when they age", () => {
    database.exec("DELETE FROM identities");
    const keeper = keepStatistics(database, {
      intervalMs: 3_600_000,
      changes: 1000,
      maxAgeMs: 60_000,
    });
    try {
      insertIdentities(database, 10);
      assert.equal(keeper.check(Date.now()), false);
      assert.equal(keeper.check(Date.now() + 61_000), true);
      assert.equal(keeper.check(Date.now() + 122_000), false, "nothing changed since");
    } finally {
      keeper.stop();
    }
  });
});
