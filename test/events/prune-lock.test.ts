import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import pg from "pg";
import { pruneLockKey, recordEvent, startEventPruner } from "../../src/events/index.ts";
import { createLogger } from "../../src/server/index.ts";
import { createMetadataStore } from "../../src/store/metadata/index.ts";
import { createTestStore, type TestStore } from "../support/stores.ts";

describe("The event pruner on PostgreSQL runs on one replica at a time", () => {
  let location: TestStore;
  let stores: ReturnType<typeof createMetadataStore>[];
  before(async () => {
    location = await createTestStore("postgres");
    // Two replicas: two stores, each with its own pool, on one database.
    stores = [createMetadataStore(location.options), createMetadataStore(location.options)];
    await stores[0].migrate();
  });
  after(async () => {
    for (const store of stores) await store.close();
    await location.drop();
  });

  it("skips while another replica holds the lock, and prunes once it is let go", async () => {
    const [a, b] = stores.map((store) =>
      startEventPruner({
        db: store.db,
        dialect: "postgres",
        retentionMs: 1,
        intervalMs: 3_600_000,
        log: createLogger({ level: "silent" }),
      }),
    );
    const count = async () =>
      Number(
        (
          await stores[0].db
            .selectFrom("events")
            .select((eb) => eb.fn.countAll().as("n"))
            .executeTakeFirstOrThrow()
        ).n,
      );
    await stores[0].db.transaction().execute((trx) =>
      recordEvent(trx, {
        type: "dev.lading.test.prune.v1",
        source: "https://lading.example/test",
        subject: "g",
        groupUid: "g",
        actor: { subject: "" },
        body: {},
      }),
    );
    await new Promise((resolve) => setTimeout(resolve, 20));
    const other = new pg.Client({ connectionString: location.options.databaseUrl });
    await other.connect();
    try {
      await other.query("SELECT pg_advisory_lock($1)", [pruneLockKey]);
      assert.deepEqual(await Promise.all([a.run(), b.run()]), ["skipped", "skipped"]);
      assert.equal(await count(), 1, "nothing was pruned while the lock was held");
      await other.query("SELECT pg_advisory_unlock($1)", [pruneLockKey]);
      assert.equal(await a.run(), "pruned");
      assert.equal(await count(), 0);
    } finally {
      await other.end();
      await a.close();
      await b.close();
    }
  });
});
