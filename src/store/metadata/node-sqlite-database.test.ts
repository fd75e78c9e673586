import assert from "node:assert/strict";
import { DatabaseSync } from "node:sqlite";
import { describe, it } from "node:test";
import { Kysely, SqliteDialect, sql } from "kysely";
import { nodeSqliteDatabase } from "./node-sqlite-database.ts";

function open() {
  const database = nodeSqliteDatabase(new DatabaseSync(":memory:"));
  database.prepare("CREATE TABLE t (id integer PRIMARY KEY, name text, data blob)").run([]);
  return database;
}

describe("nodeSqliteDatabase", () => {
  it("reads statements that return columns and runs the others for their changes", () => {
    const database = open();
    const insert = database.prepare("INSERT INTO t (name) VALUES (?), (?)");
    assert.equal(insert.reader, false);
    assert.deepEqual(insert.run(["a", "b"]), { changes: 2, lastInsertRowid: 2 });
    const returning = database.prepare("INSERT INTO t (name) VALUES (?) RETURNING id, name");
    assert.equal(returning.reader, true);
    assert.deepEqual(returning.all(["c"]), [{ id: 3, name: "c" }]);
    assert.equal(database.prepare("PRAGMA user_version").reader, true);
    database.close();
  });

  it("gives rows as plain objects, named by their columns, from all and iterate", () => {
    const database = open();
    database.prepare("INSERT INTO t (name, data) VALUES (?, ?)").run(["a", Buffer.from("xy")]);
    const select = database.prepare("SELECT id, name, data, name AS name FROM t WHERE id = ?");
    const [row] = select.all([1]) as Record<string, unknown>[];
    // deepStrictEqual compares prototypes: a null-prototype row would not equal the literal.
    assert.deepStrictEqual(row, { id: 1, name: "a", data: new Uint8Array([120, 121]) });
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    assert.deepStrictEqual([...select.iterate([1])], [row]);
    // A statement is reset when it runs again, also after an iteration left unfinished.
    select.iterate([1]).next();
    assert.deepStrictEqual(select.all([1]), [row]);
    database.close();
  });

  it("drives Kysely's SQLite dialect", async () => {
    const db = new Kysely<{ t: { id: number; name: string } }>({
      dialect: new SqliteDialect({ database: open() }),
    });
    const inserted = await db.insertInto("t").values({ id: 7, name: "seven" }).executeTakeFirst();
    assert.equal(inserted.insertId, 7n);
    assert.equal(inserted.numInsertedOrUpdatedRows, 1n);
    assert.deepStrictEqual(await db.selectFrom("t").select(["id", "name"]).execute(), [
      { id: 7, name: "seven" },
    ]);
    const streamed = [];
    for await (const row of db.selectFrom("t").select("name").stream()) streamed.push(row);
    assert.deepStrictEqual(streamed, [{ name: "seven" }]);
    const updated = await sql`UPDATE t SET name = 'sept'`.execute(db);
    assert.equal(updated.numAffectedRows, 1n);
    await db.destroy();
  });
});
