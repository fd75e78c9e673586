import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import { builtInRole, builtInRoles, ensureBuiltInRoles } from "./built-in-roles.ts";
import { capabilities } from "./capabilities.ts";

test("built-in roles have fixed uids and the reference's capability sets", () => {
  assert.equal(builtInRole("viewer")?.uid, "63921b2c44617e3f2603851537be0123af4a57d7");
  for (const role of builtInRoles) assert.match(role.uid, /^[0-9a-f]{40}$/);
  assert.equal(new Set(builtInRoles.map((r) => r.uid)).size, builtInRoles.length);
  assert.deepEqual(builtInRole("owner")?.capabilities, [...capabilities]);

  const viewer = new Set(builtInRole("viewer")?.capabilities);
  assert.ok(viewer.has("repo.blobs.get") && viewer.has("terms.list") && viewer.has("groups.list"));
  assert.ok(!viewer.has("repo.create") && !viewer.has("terms.accept"));

  const editor = new Set(builtInRole("editor")?.capabilities);
  for (const c of viewer) assert.ok(editor.has(c));
  assert.ok(editor.has("repo.delete") && editor.has("subscriptions.create"));
  assert.ok(!editor.has("role_bindings.create") && !editor.has("tag.create"));

  const pull = builtInRole("registry.pull")?.capabilities ?? [];
  assert.equal(pull.length, 10);
  const push = new Set(builtInRole("registry.push")?.capabilities);
  assert.equal(push.size, 20);
  assert.ok(push.has("tag.create") && push.has("groups.create"));
  const creator = new Set(builtInRole("registry.pull_token_creator")?.capabilities);
  assert.deepEqual(
    [...creator].filter((c) => !pull.includes(c)),
    ["roles.list", "role_bindings.create", "identity.create"],
  );
});

for (const kind of storeKinds) {
  describe(`ensureBuiltInRoles on ${kind}`, () => {
    let t: Awaited<ReturnType<typeof openTestStore>>;
    before(async () => {
      t = await openTestStore(kind);
    });
    after(() => t.close());

    test("inserts, is idempotent and concurrent-safe, and repairs changed rows", async () => {
      const { db } = t.store;
      await Promise.all([ensureBuiltInRoles(db), ensureBuiltInRoles(db), ensureBuiltInRoles(db)]);
      const rows = await db.selectFrom("roles").selectAll().orderBy("uid").execute();
      assert.equal(rows.length, builtInRoles.length);
      for (const row of rows) {
        const role = builtInRoles.find((r) => r.uid === row.uid);
        assert.ok(role);
        assert.equal(row.parent_uid, "");
        assert.equal(row.name, role.name);
        assert.deepEqual(JSON.parse(row.capabilities), role.capabilities);
      }

      const viewer = builtInRole("viewer")?.uid ?? "";
      await db
        .updateTable("roles")
        .set({ capabilities: "[]", update_time: "2000-01-01T00:00:00.000Z" })
        .where("uid", "=", viewer)
        .execute();
      await ensureBuiltInRoles(db);
      const after = await db.selectFrom("roles").selectAll().orderBy("uid").execute();
      for (const row of after) {
        const before = rows.find((r) => r.uid === row.uid);
        assert.equal(row.create_time, before?.create_time);
        if (row.uid === viewer) {
          assert.deepEqual(JSON.parse(row.capabilities), builtInRole("viewer")?.capabilities);
          assert.notEqual(row.update_time, "2000-01-01T00:00:00.000Z");
        } else {
          assert.equal(row.update_time, before?.update_time);
        }
      }
    });
  });
}

for (const kind of storeKinds) {
  describe(`built-in roles and list_counts [${kind}]`, () => {
    test("counts each built-in role once however often the server starts", async () => {
      const { store, close } = await openTestStore(kind);
      try {
        for (let start = 0; start < 3; start++) await ensureBuiltInRoles(store.db);
        const counter = await store.db
          .selectFrom("list_counts")
          .select("n")
          .where("table_name", "=", "roles")
          .where("parent_uid", "=", "")
          .executeTakeFirstOrThrow();
        assert.equal(Number(counter.n), builtInRoles.length);
      } finally {
        await close();
      }
    });
  });
}
