import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { createTestStore, type TestStore } from "../../../test/support/stores.ts";
import { newRootUid } from "../../uidp/index.ts";
import { createMetadataStore, type MetadataStore } from "./metadata-store.ts";
import { precompiled } from "./precompiled.ts";

const named = precompiled(
  (db, name: string) =>
    db.selectFrom("groups").select("uid").where("parent_uid", "=", "").where("name", "=", name),
  { named: true },
);
const unnamed = precompiled((db, uid: string) =>
  db.selectFrom("groups").select("name").where("uid", "=", uid),
);

// Named statements exist only on PostgreSQL; SQLite's statements are cached by text already.
describe("named prepared statements [postgres]", () => {
  let location: TestStore;
  let store: MetadataStore;
  const orgs = new Map<string, string>();
  before(async () => {
    location = await createTestStore("postgres");
    // One connection, so the session asked about its prepared statements is the one that ran them.
    store = createMetadataStore({ ...location.options, poolSize: 1 });
    await store.migrate();
    const time = new Date().toISOString();
    for (const name of ["alpha", "beta"]) {
      orgs.set(name, newRootUid());
      await store.db
        .insertInto("groups")
        .values({
          uid: orgs.get(name) as string,
          parent_uid: "",
          name,
          description: "",
          create_time: time,
          update_time: time,
        })
        .execute();
    }
  });
  after(async () => {
    await store.close();
    await location.drop();
  });

  const prepared = async () =>
    (
      await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(
        store.db,
      )
    ).rows.map((r) => r.statement);

  it("prepares a named query once per connection and runs it with each call's values", async () => {
    assert.deepEqual(await named(store.db, "alpha"), [{ uid: orgs.get("alpha") }]);
    assert.deepEqual(await named(store.db, "beta"), [{ uid: orgs.get("beta") }]);
    assert.deepEqual(await named(store.db, "gamma"), []);
    const statements = await prepared();
    assert.equal(statements.filter((s) => s.includes('from "groups"')).length, 1);
    assert.match(statements.join("\n"), /"parent_uid" = \$1 and "name" = \$2/);
  });

  it("leaves every other query unnamed, in and out of transactions", async () => {
    assert.deepEqual(await unnamed(store.db, orgs.get("beta") as string), [{ name: "beta" }]);
    await store.db.transaction().execute(async (tx) => {
      assert.deepEqual(await named(tx, "alpha"), [{ uid: orgs.get("alpha") }]);
      assert.deepEqual(await unnamed(tx, orgs.get("alpha") as string), [{ name: "alpha" }]);
    });
    const statements = await prepared();
    assert.equal(
      statements.some((s) => s.includes('select "name"')),
      false,
    );
    assert.equal(statements.filter((s) => s.includes('from "groups"')).length, 1);
  });
});
