import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { openTestStore, storeKinds } from "../../../test/support/stores.ts";
import { newRootUid } from "../../uidp/index.ts";
import { precompiled } from "./precompiled.ts";

const rootGroupNamed = precompiled((db, name: string) =>
  db.selectFrom("groups").select("uid").where("parent_uid", "=", "").where("name", "=", name),
);

for (const kind of storeKinds) {
  describe(`precompiled queries [${kind}]`, () => {
    let opened: Awaited<ReturnType<typeof openTestStore>>;
    const orgs = new Map<string, string>();
    before(async () => {
      opened = await openTestStore(kind);
      const time = new Date().toISOString();
      for (const name of ["alpha", "beta"]) {
        const uid = newRootUid();
        orgs.set(name, uid);
        const row = { uid, name, description: "", create_time: time, update_time: time };
        await opened.store.db
          .insertInto("groups")
          .values({ ...row, parent_uid: "" })
          .execute();
      }
    });
    after(() => opened.close());

    it("runs with each call's values and keeps the query's own constants", async () => {
      assert.deepEqual(await rootGroupNamed(opened.store.db, "alpha"), [
        { uid: orgs.get("alpha") },
      ]);
      assert.deepEqual(await rootGroupNamed(opened.store.db, "beta"), [{ uid: orgs.get("beta") }]);
      assert.deepEqual(await rootGroupNamed(opened.store.db, ""), []);
      assert.deepEqual(await rootGroupNamed(opened.store.db, "gamma"), []);
    });

    it("refuses a query that uses an argument as SQL rather than as a value", async () => {
      const asColumn = precompiled((db, column: string) =>
        db.selectFrom("groups").select(sql<string>`${sql.ref(column)}`.as("picked")),
      );
      await assert.rejects(asColumn(opened.store.db, "name"), /not a bound parameter/);
      const unused = precompiled((db, _name: string) => db.selectFrom("groups").select("uid"));
      await assert.rejects(unused(opened.store.db, "alpha"), /not a bound parameter/);
    });
  });
}
