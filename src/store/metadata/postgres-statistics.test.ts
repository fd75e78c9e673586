import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Kysely, sql } from "kysely";
import { openTestStore } from "../../../test/support/stores.ts";
import { keepPostgresStatistics } from "./postgres-statistics.ts";

const team = "0123456789abcdef0123456789abcdef01234567/0123456789abcdef";

describe("PostgreSQL statistics", () => {
  let opened: Awaited<ReturnType<typeof openTestStore>>;
  let db: Kysely<unknown>;
  before(async () => {
    opened = await openTestStore("postgres");
    db = opened.store.db as unknown as Kysely<unknown>;
  });
  after(() => opened?.close());

  /** The plan of a page of `team`'s identities by name. */
  async function plan(): Promise<string> {
    const rows = await sql<{ "QUERY PLAN": string }>`EXPLAIN SELECT uid, name FROM identities
      WHERE uid > ${`${team}/`} AND uid < ${`${team}0`} ORDER BY name, uid LIMIT 51`.execute(db);
    return rows.rows.map((r) => r["QUERY PLAN"]).join("\n");
  }

  it("analyzes a table once enough of it changed, so a page walks the sort index", async () => {
    await sql`INSERT INTO identities (uid, parent_uid, name, description, issuer, subject, create_time, update_time)
      SELECT ${team} || '/' || lpad(to_hex(i), 16, '0'), ${team}, 'identity-' || i, '', '', '', 'x', 'x'
      FROM generate_series(1, 20000) AS i`.execute(db);
    // What a server whose autovacuum is off, or has not come by yet, would plan.
    await sql`SELECT pg_stat_force_next_flush()`.execute(db).catch(() => undefined);
    const keeper = keepPostgresStatistics(db, { intervalMs: 3_600_000, changes: 1000 });
    try {
      const analyzed = await keeper.run();
      assert.ok(analyzed.includes("identities"), `analyzed ${analyzed.join(", ")}`);
      assert.match(await plan(), /Index (Only )?Scan using identities_name/);
      assert.deepEqual(await keeper.run(), [], "nothing changed since");
    } finally {
      await keeper.stop();
    }
  });
});
