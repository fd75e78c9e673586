import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Migrator, sql } from "kysely";
import { createTestStore, storeKinds } from "../../../test/support/stores.ts";
import { newChildUid, newRootUid } from "../../uidp/index.ts";
import { createMetadataStore } from "./metadata-store.ts";
import { migrationProvider } from "./migrations/index.ts";

for (const kind of storeKinds) {
  describe(`list_counts [${kind}]`, () => {
    it("backfills existing rows and then follows every insert and delete", async () => {
      const location = await createTestStore(kind);
      const store = createMetadataStore(location.options);
      try {
        const migrator = new Migrator({ db: store.db, provider: migrationProvider });
        const first = await migrator.migrateTo("0001-iam");
        assert.equal(first.error, undefined);
        const org = newRootUid();
        const time = new Date().toISOString();
        const group = (uid: string, parent: string) => ({
          uid,
          parent_uid: parent,
          name: uid.slice(-6),
          description: "",
          create_time: time,
          update_time: time,
        });
        const team = newChildUid(org);
        await store.db
          .insertInto("groups")
          .values([group(org, ""), group(team, org)])
          .execute();
        await store.migrate();

        const subgroups = Array.from({ length: 5 }, () => newChildUid(team));
        await store.db
          .insertInto("groups")
          .values(subgroups.map((uid) => group(uid, team)))
          .execute();
        await store.db.deleteFrom("groups").where("uid", "=", subgroups[0]).execute();

        const counters = await store.db
          .selectFrom("list_counts")
          .selectAll()
          .where("table_name", "=", "groups")
          .execute();
        const byParent = Object.fromEntries(counters.map((c) => [c.parent_uid, Number(c.n)]));
        const actual = await sql<{ parent_uid: string; n: number }>`
          SELECT parent_uid, count(*) AS n FROM groups GROUP BY parent_uid`.execute(store.db);
        for (const row of actual.rows)
          assert.equal(byParent[row.parent_uid], Number(row.n), row.parent_uid);
        assert.deepEqual(byParent, { "": 1, [org]: 1, [team]: 4 });
      } finally {
        await store.close();
        await location.drop();
      }
    });
  });
}
