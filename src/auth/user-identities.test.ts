import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import type { IdentityProvidersTable } from "../store/metadata/index.ts";
import { builtInRoleUid, ensureBuiltInRoles } from "./built-in-roles.ts";
import {
  groupsOf,
  type SignInChanges,
  upsertSignedInUser,
  userIdentityName,
  userIdentityUid,
} from "./user-identities.ts";

describe("user identity naming", () => {
  it("derives the uid from issuer and subject", () => {
    const expected = createHash("sha256").update("https://idp\nalice").digest("hex").slice(0, 40);
    assert.equal(userIdentityUid("https://idp", "alice"), expected);
    assert.notEqual(
      userIdentityUid("https://idp", "alice"),
      userIdentityUid("https://idp/", "alice"),
    );
  });

  it("takes preferred_username, then name, then the email local part, sanitised", () => {
    assert.equal(userIdentityName({ preferred_username: "Alice.L", name: "x" }), "alice.l");
    assert.equal(userIdentityName({ name: "Zoë O'Brien" }), "zoe o-brien");
    assert.equal(userIdentityName({ email: "Bob+tag@example.com" }), "bob-tag");
    assert.equal(userIdentityName({ name: "李", sub: "s-1" }), "s-1");
    assert.equal(userIdentityName({ sub: "auth0|123" }), "auth0-123");
    assert.equal(userIdentityName({}), "user");
    assert.equal(userIdentityName({ name: "a".repeat(80) }).length, 63);
    for (const name of ["alice.l", "zoe o-brien", "bob-tag", "auth0-123"]) {
      assert.match(name, /^[a-z0-9 ._-]{1,63}$/);
    }
  });

  it("reads the groups claim as an array of strings or one string", () => {
    assert.deepEqual(groupsOf({ groups: ["a", 1, "b"] }, "groups"), ["a", "b"]);
    assert.deepEqual(groupsOf({ roles: "admin" }, "roles"), ["admin"]);
    assert.deepEqual(groupsOf({ groups: ["a"] }, ""), []);
    assert.deepEqual(groupsOf({ groups: { a: 1 } }, "groups"), []);
  });
});

for (const kind of storeKinds) {
  describe(`upsertSignedInUser [${kind}]`, () => {
    let opened: Awaited<ReturnType<typeof openTestStore>>;
    const time = "2030-01-01T00:00:00.000Z";
    const org = "1".repeat(40);
    const provider: IdentityProvidersTable = {
      uid: `${org}/aaaaaaaaaaaaaaaa`,
      parent_uid: org,
      name: "idp",
      description: "",
      issuer: "https://idp.example",
      client_id: "lading",
      client_secret: "",
      additional_scopes: "[]",
      groups_claim: "groups",
      default_role_uid: builtInRoleUid("viewer"),
      pkce_enabled: 1,
      create_time: time,
      update_time: time,
    };
    const bindings = async (uid: string) =>
      (
        await opened.store.db
          .selectFrom("role_bindings")
          .select(["role_uid", "mapping_uid"])
          .where("identity_uid", "=", uid)
          .execute()
      )
        .map((b) => `${b.role_uid}:${b.mapping_uid}`)
        .sort();

    before(async () => {
      opened = await openTestStore(kind);
      const db = opened.store.db;
      await ensureBuiltInRoles(db);
      await db
        .insertInto("groups")
        .values({
          uid: org,
          parent_uid: "",
          name: "org",
          description: "",
          create_time: time,
          update_time: time,
        })
        .execute();
      await db.insertInto("identity_providers").values(provider).execute();
      await db
        .insertInto("external_group_role_mappings")
        .values(
          [
            ["devs", "editor", "bbbbbbbbbbbbbbbb"],
            ["devs", "registry.push", "cccccccccccccccc"],
            ["ops", "owner", "dddddddddddddddd"],
          ].map(([group, role, id]) => ({
            uid: `${provider.uid}/${id}`,
            parent_uid: provider.uid,
            external_group_id: group,
            role_uid: builtInRoleUid(role),
            scope_uid: org,
            create_time: time,
            update_time: time,
          })),
        )
        .execute();
    });
    after(() => opened?.close());

    it("creates the identity once, binds the default role once, and reconciles mappings", async () => {
      const db = opened.store.db;
      const claims = { iss: provider.issuer, sub: "u1", email: "u1@x.io", email_verified: true };
      const first = await upsertSignedInUser(db, provider, { ...claims, groups: ["devs"] });
      assert.deepEqual(first, { uid: userIdentityUid(provider.issuer, "u1"), created: true });
      const viewer = `${builtInRoleUid("viewer")}:`;
      const editor = `${builtInRoleUid("editor")}:${provider.uid}/bbbbbbbbbbbbbbbb`;
      const push = `${builtInRoleUid("registry.push")}:${provider.uid}/cccccccccccccccc`;
      const owner = `${builtInRoleUid("owner")}:${provider.uid}/dddddddddddddddd`;
      assert.deepEqual(await bindings(first.uid), [viewer, editor, push].sort());
      const row = await db
        .selectFrom("identities")
        .selectAll()
        .where("uid", "=", first.uid)
        .executeTakeFirstOrThrow();
      assert.equal(row.parent_uid, "");
      assert.equal(row.email, "u1@x.io");
      assert.equal(row.provider_uid, provider.uid);

      await db
        .deleteFrom("role_bindings")
        .where("identity_uid", "=", first.uid)
        .where("mapping_uid", "=", "")
        .execute();
      const second = await upsertSignedInUser(db, provider, {
        ...claims,
        email_verified: false,
        groups: "ops",
      });
      assert.deepEqual(second, { uid: first.uid, created: false });
      assert.deepEqual(await bindings(first.uid), [owner]);
      const again = await db
        .selectFrom("identities")
        .selectAll()
        .where("uid", "=", first.uid)
        .executeTakeFirstOrThrow();
      assert.equal(again.email, "");
    });

    it("reports what changed to its hook inside the transaction, which a failing hook rolls back", async () => {
      const db = opened.store.db;
      const claims = { iss: provider.issuer, sub: "u2", groups: ["devs"] };
      const uid = userIdentityUid(provider.issuer, "u2");
      const refused = upsertSignedInUser(db, provider, claims, async (trx, changes) => {
        const seen = await trx
          .selectFrom("identities")
          .select("uid")
          .where("uid", "=", changes.identityUid)
          .execute();
        assert.equal(seen.length, 1, "the hook sees the new identity in the transaction");
        throw new Error("recording failed");
      });
      await assert.rejects(refused, /recording failed/);
      const none = await db.selectFrom("identities").select("uid").where("uid", "=", uid).execute();
      assert.deepEqual(none, []);
      assert.deepEqual(await bindings(uid), []);

      const reports: SignInChanges[] = [];
      const record = async (_: unknown, changes: SignInChanges) => {
        reports.push(changes);
      };
      await upsertSignedInUser(db, provider, claims, record);
      assert.equal(reports.length, 1);
      assert.equal(reports[0].created?.uid, uid);
      assert.equal(reports[0].bound.length, 3);
      assert.deepEqual(reports[0].unbound, []);
      await upsertSignedInUser(db, provider, claims, record);
      assert.equal(reports.length, 1, "an unchanged sign-in reports nothing");
      await upsertSignedInUser(db, provider, { ...claims, groups: [] }, record);
      assert.equal(reports[1].created, undefined);
      assert.deepEqual(reports[1].bound, []);
      assert.deepEqual(reports[1].unbound.map((b) => b.mapping_uid).sort(), [
        `${provider.uid}/bbbbbbbbbbbbbbbb`,
        `${provider.uid}/cccccccccccccccc`,
      ]);
    });
  });
}
