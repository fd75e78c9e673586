import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { createMetadataStore } from "./metadata-store.ts";
import { keepStatistics } from "./sqlite-statistics.ts";

const team = "0123456789abcdef0123456789abcdef01234567/0123456789abcdef";

/** The query plan of a list page: a page of `team`'s identities by name. */
function plan(database: DatabaseSync): string {
  const rows = database
    .prepare(
      `EXPLAIN QUERY PLAN SELECT uid, name FROM identities
       WHERE uid > ? AND uid < ? ORDER BY name, uid LIMIT 51`,
    )
    .all(`${team}/`, `${team}0`) as { detail: string }[];
  return rows.map((r) => r.detail).join("; ");
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
      // Without fresh statistics SQLite takes the uid range and sorts every row in it.
      assert.match(plan(database), /TEMP B-TREE/);
      assert.equal(keeper.check(), true);
      assert.match(plan(database), /COVERING INDEX identities_name/);
      assert.doesNotMatch(plan(database), /TEMP B-TREE/);
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
