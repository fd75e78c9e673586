import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";
import { sql } from "kysely";
import { openTestStore } from "../../../test/support/stores.ts";
import { isPureRead } from "./node-sqlite-database.ts";

const stamps = { create_time: "2026-01-01T00:00:00.000Z", update_time: "2026-01-01T00:00:00.000Z" };
const group = (name: string) => ({
  uid: `0${name}`,
  parent_uid: "",
  name,
  description: "",
  ...stamps,
});

describe("changeMark [sqlite]", () => {
  it("stays while only SELECTs run and moves with every other statement of this connection", async () => {
    const { store, close } = await openTestStore("sqlite");
    try {
      const { db } = store;
      await db.selectFrom("groups").select("uid").execute();
      const first = store.changeMark();
      assert.ok(first);
      await db.selectFrom("groups").select("uid").execute();
      await db.selectFrom("repos").selectAll().where("name", "=", "x").execute();
      assert.equal(store.changeMark(), first, "reads leave the mark");

      await db.insertInto("groups").values(group("acme")).execute();
      const inserted = store.changeMark();
      assert.notEqual(inserted, first);
      // A statement that changes no row still counts: the mark errs towards a miss.
      await db.deleteFrom("groups").where("name", "=", "nobody").execute();
      const deleted = store.changeMark();
      assert.notEqual(deleted, inserted);
      // A CTE is not told apart from a write: it counts too.
      await sql`with g as (select uid from groups) select uid from g`.execute(db);
      assert.notEqual(store.changeMark(), deleted);
      const before = store.changeMark();
      await db.transaction().execute(async (tx) => {
        await tx.selectFrom("groups").select("uid").execute();
      });
      assert.notEqual(store.changeMark(), before, "BEGIN and COMMIT count");
    } finally {
      await close();
    }
  });

  it("moves when another connection, as another thread or process, commits", async () => {
    const { store, close, options } = await openTestStore("sqlite");
    const other = new DatabaseSync(join(options.dataDir, "lading.db"), { timeout: 5000 });
    try {
      await store.db.selectFrom("groups").select("uid").execute();
      const first = store.changeMark();
      other.prepare("select count(*) from groups").get();
      assert.equal(store.changeMark(), first, "another connection's read leaves it");
      const columns = "uid, parent_uid, name, description, create_time, update_time";
      other
        .prepare(`insert into groups (${columns}) values (?, ?, ?, ?, ?, ?)`)
        .run("0other", "", "other", "", stamps.create_time, stamps.update_time);
      assert.notEqual(store.changeMark(), first);
    } finally {
      other.close();
      await close();
    }
  });

  it("is undefined on PostgreSQL, where other replicas change the data unannounced", async () => {
    const { store, close } = await openTestStore("postgres");
    try {
      await store.db.selectFrom("groups").select("uid").execute();
      assert.equal(store.changeMark(), undefined);
    } finally {
      await close();
    }
  });

  it("counts as pure reads only statements that start with SELECT", () => {
    assert.equal(isPureRead("select 1"), true);
    assert.equal(isPureRead("  SELECT * from tags"), true);
    for (const text of [
      "insert into t values (1)",
      "update t set a = 1",
      "delete from t",
      "with x as (select 1) insert into t select * from x",
      "begin immediate",
      "commit",
      "PRAGMA shrink_memory",
      "selected",
    ]) {
      assert.equal(isPureRead(text), false, text);
    }
  });
});
