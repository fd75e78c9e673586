import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { createTestStore, openTestStore, storeKinds } from "../../../test/support/stores.ts";
import { afterCommit, runInTransaction } from "./ambient-transactions.ts";
import { createMetadataStore, type MetadataStore } from "./metadata-store.ts";

for (const kind of storeKinds) {
  describe(`runInTransaction [${kind}]`, () => {
    let opened: Awaited<ReturnType<typeof openTestStore>>;
    let store: MetadataStore;
    before(async () => {
      opened = await openTestStore(kind);
      store = opened.store;
    });
    after(() => opened.close());

    const setting = (key: string) =>
      store.db.selectFrom("settings").select("value").where("key", "=", key).executeTakeFirst();
    const put = (key: string, value = "v") =>
      store.db.insertInto("settings").values({ key, value }).execute();

    it("commits every query of the context, nested transactions included", async () => {
      await runInTransaction(store.db, async () => {
        await put("commit-a");
        await store.db.transaction().execute(async (trx) => {
          await trx.insertInto("settings").values({ key: "commit-b", value: "v" }).execute();
        });
        // A query of the context sees the uncommitted rows: it runs on the same connection.
        assert.equal((await setting("commit-b"))?.value, "v");
      });
      assert.equal((await setting("commit-a"))?.value, "v");
      assert.equal((await setting("commit-b"))?.value, "v");
    });

    it("rolls back every query of the context when the work throws", async () => {
      await assert.rejects(
        runInTransaction(store.db, async () => {
          await put("rollback-a");
          await store.db.transaction().execute(async (trx) => {
            await trx.insertInto("settings").values({ key: "rollback-b", value: "v" }).execute();
          });
          throw new Error("boom");
        }),
        /boom/,
      );
      assert.equal(await setting("rollback-a"), undefined);
      assert.equal(await setting("rollback-b"), undefined);
    });

    it("rolls a failed nested transaction back to its savepoint only", async () => {
      await runInTransaction(store.db, async () => {
        await put("savepoint-a");
        await assert.rejects(
          store.db.transaction().execute(async (trx) => {
            await trx.insertInto("settings").values({ key: "savepoint-b", value: "v" }).execute();
            // Violates the primary key: the database aborts the statement.
            await trx.insertInto("settings").values({ key: "savepoint-a", value: "v" }).execute();
          }),
        );
        await put("savepoint-c");
      });
      assert.equal((await setting("savepoint-a"))?.value, "v");
      assert.equal(await setting("savepoint-b"), undefined);
      assert.equal((await setting("savepoint-c"))?.value, "v");
    });

    it("runs after-commit tasks once committed, never after a rollback", async () => {
      const ran: string[] = [];
      afterCommit(store.db, () => ran.push("outside"));
      await runInTransaction(store.db, async () => {
        afterCommit(store.db, () => ran.push("committed"));
        assert.deepEqual(ran, ["outside"], "not before the commit");
      });
      await assert.rejects(
        runInTransaction(store.db, async () => {
          afterCommit(store.db, () => ran.push("rolled back"));
          throw new Error("boom");
        }),
      );
      assert.deepEqual(ran, ["outside", "committed"]);
    });

    it("serves concurrent work outside and inside transactions without deadlock", async () => {
      const jobs: Promise<unknown>[] = [];
      for (let i = 0; i < 40; i++) {
        jobs.push(
          i % 2 === 0
            ? runInTransaction(store.db, async () => {
                await put(`concurrent-${i}`);
                await new Promise((resolve) => setTimeout(resolve, 2));
                await setting(`concurrent-${i}`);
              })
            : setting(`concurrent-${i - 1}`),
        );
      }
      const timeout = new Promise((_, reject) =>
        setTimeout(() => reject(new Error("deadlock")), 20_000).unref(),
      );
      await Promise.race([Promise.all(jobs), timeout]);
      const rows = await store.db
        .selectFrom("settings")
        .select("key")
        .where("key", "like", "concurrent-%")
        .execute();
      assert.equal(rows.length, 20);
    });
  });
}

describe("runInTransaction [sqlite, a second connection]", () => {
  it("takes the write lock when the transaction begins, not at its first write", async () => {
    const location = await createTestStore("sqlite");
    const store = createMetadataStore(location.options);
    await store.migrate();
    // No busy timeout: a locked database answers at once.
    const other = new DatabaseSync(join(location.options.dataDir, "lading.db"), { timeout: 0 });
    const otherWrite = other.prepare("insert into settings (key, value) values ('other', 'v')");
    try {
      await runInTransaction(store.db, async () => {
        // A read first: with a plain `begin`, the other connection could commit here and this
        // transaction's first write would then fail with SQLITE_BUSY, without waiting.
        await store.db.selectFrom("settings").select("key").execute();
        assert.throws(() => otherWrite.run(), /database is locked/);
        await store.db.insertInto("settings").values({ key: "own", value: "v" }).execute();
      });
      otherWrite.run();
      const keys = await store.db.selectFrom("settings").select("key").execute();
      assert.deepEqual(
        keys
          .map((k) => k.key)
          .filter((k) => k === "own" || k === "other")
          .sort(),
        ["other", "own"],
      );
    } finally {
      other.close();
      await store.close();
      await location.drop();
    }
  });
});
