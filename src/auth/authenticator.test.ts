import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { CompiledQuery } from "kysely";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import { LadingError } from "../errors/index.ts";
import { identityExtras, type MetadataSchema } from "../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";
import { type Authenticator, createAuthenticator, createGrants } from "./authenticator.ts";
import { builtInRoleUid, ensureBuiltInRoles } from "./built-in-roles.ts";
import { createTokenIssuer, type TokenIssuer } from "./token-issuer.ts";

const api = "https://lading.example";

async function rejects(promise: Promise<unknown>, code: number, reason: string): Promise<void> {
  await assert.rejects(promise, (error) => {
    assert.ok(error instanceof LadingError, String(error));
    assert.deepEqual([error.code, error.reason], [code, reason]);
    return true;
  });
}

test("createGrants applies the reach rule and keeps scopes minimal", () => {
  const r = "a".repeat(40);
  const s = `${r}/1111111111111111`;
  const u = `${s}/2222222222222222`;
  const other = "b".repeat(40);
  const bindings = [
    { groupUid: r, capabilities: ["repo.list"] },
    { groupUid: s, capabilities: ["repo.list", "tag.create"] },
    { groupUid: other, capabilities: ["repo.list"] },
  ];

  const underS = createGrants(s, bindings);
  assert.deepEqual(underS.scopes("repo.list"), [s]);
  assert.equal(underS.can("repo.list", r), false);
  assert.equal(underS.can("repo.list", u), true);
  assert.equal(underS.can("tag.create", `${u}/3333333333333333`), true);
  assert.equal(underS.can("repo.list", other), false);

  const underR = createGrants(r, bindings);
  assert.deepEqual(underR.scopes("repo.list"), [r]);
  assert.deepEqual(underR.scopes("tag.create"), [s]);
  assert.equal(underR.can("tag.create", r), false);

  const everywhere = createGrants("", bindings);
  assert.deepEqual(everywhere.scopes("repo.list"), [r, other].sort());
  assert.deepEqual(everywhere.scopes("groups.delete"), []);
});

test("createGrants narrows bindings to a token's scopes (platform scopes semantics)", () => {
  const r = "a".repeat(40);
  const s = `${r}/1111111111111111`;
  const u = `${s}/2222222222222222`;
  const t = `${r}/3333333333333333`;
  const bindings = [
    { groupUid: r, capabilities: ["repo.list"] },
    { groupUid: u, capabilities: ["tag.create"] },
  ];
  const toS = createGrants("", bindings, [s]);
  assert.deepEqual(toS.scopes("repo.list"), [s]);
  assert.equal(toS.can("repo.list", r), false);
  assert.equal(toS.can("repo.list", t), false);
  assert.equal(toS.can("repo.list", u), true);
  assert.deepEqual(toS.scopes("tag.create"), [u]);
  const toT = createGrants("", bindings, [t]);
  assert.deepEqual(toT.scopes("tag.create"), []);
  assert.deepEqual(createGrants("", bindings, []).scopes("repo.list"), []);
  assert.deepEqual(createGrants("", bindings, [r, s]).scopes("repo.list"), [r]);
});

for (const kind of storeKinds) {
  describe(`authenticator on ${kind}`, () => {
    let t: Awaited<ReturnType<typeof openTestStore>>;
    let tokens: TokenIssuer;
    let auth: Authenticator;
    const root = newRootUid();
    const sub = newChildUid(root);
    const leaf = newChildUid(sub);
    const now = new Date().toISOString();
    const times = { create_time: now, update_time: now };

    async function addIdentity(parent: string): Promise<string> {
      const uid = newChildUid(parent);
      await t.store.db
        .insertInto("identities")
        .values({
          uid,
          parent_uid: parent,
          name: "ci",
          description: "",
          issuer: "https://ci.example",
          subject: uid,
          ...identityExtras,
          last_seen_time: null,
          ...times,
        })
        .execute();
      return uid;
    }

    async function bind(identity: string, group: string, role: string): Promise<string> {
      const uid = newChildUid(group);
      const row: MetadataSchema["role_bindings"] = {
        uid,
        parent_uid: group,
        identity_uid: identity,
        role_uid: role,
        mapping_uid: "",
        ...times,
      };
      await t.store.db.insertInto("role_bindings").values(row).execute();
      return uid;
    }

    const bearer = async (identity: string, audience = api) =>
      `Bearer ${await tokens.mint({ subject: identity, audience, ttlSeconds: 300 })}`;

    before(async () => {
      t = await openTestStore(kind);
      const { db } = t.store;
      await ensureBuiltInRoles(db);
      for (const [uid, parent] of [
        [root, ""],
        [sub, root],
        [leaf, sub],
      ]) {
        await db
          .insertInto("groups")
          .values({ uid, parent_uid: parent, name: uid.slice(-6), description: "", ...times })
          .execute();
      }
      tokens = createTokenIssuer({ db, issuerUrl: api });
      auth = createAuthenticator({ db, tokens, audience: api });
    });
    after(() => t.close());

    test("an identity under a subgroup gets nothing from a binding on the organisation", async () => {
      const identity = await addIdentity(sub);
      await bind(identity, root, builtInRoleUid("owner"));
      const principal = await auth.authenticate(await bearer(identity));
      assert.equal(principal.identityUid, identity);
      assert.equal(principal.claims.sub, identity);
      const grants = await principal.grants();
      assert.equal(grants.can("repo.list", root), false);
      assert.equal(grants.can("repo.list", leaf), false);
      assert.deepEqual(grants.scopes("repo.list"), []);
    });

    test("a binding on its own subgroup counts, with the built-in role's capabilities", async () => {
      const identity = await addIdentity(sub);
      await bind(identity, root, builtInRoleUid("owner"));
      await bind(identity, sub, builtInRoleUid("registry.pull"));
      const grants = await (await auth.authenticate(await bearer(identity))).grants();
      assert.equal(grants.can("repo.blobs.get", sub), true);
      assert.equal(grants.can("tag.list", `${leaf}/0123456789abcdef`), true);
      assert.equal(grants.can("tag.create", leaf), false);
      assert.equal(grants.can("repo.list", root), false);
      assert.deepEqual(grants.scopes("repo.list"), [sub]);
    });

    test("an organisation identity holds the roles of every binding in its organisation", async () => {
      const identity = await addIdentity(root);
      await bind(identity, root, builtInRoleUid("viewer"));
      await bind(identity, leaf, builtInRoleUid("editor"));
      const custom = newChildUid(root);
      await t.store.db
        .insertInto("roles")
        .values({
          uid: custom,
          parent_uid: root,
          name: "tagger",
          description: "",
          capabilities: JSON.stringify(["tag.create"]),
          ...times,
        })
        .execute();
      await bind(identity, sub, custom);
      const grants = await (
        await auth.authenticate(`bearer  ${(await bearer(identity)).slice(7)}`)
      ).grants();
      assert.deepEqual(grants.scopes("repo.list"), [root]);
      assert.deepEqual(grants.scopes("repo.create"), [leaf]);
      assert.deepEqual(grants.scopes("tag.create"), [sub]);
      assert.equal(grants.can("repo.create", sub), false);
      assert.equal(grants.can("terms.accept", root), false);
    });

    test("removing a binding takes effect on the next request; grants load once per request", async () => {
      const identity = await addIdentity(root);
      const binding = await bind(identity, root, builtInRoleUid("viewer"));
      const header = await bearer(identity);
      const first = await auth.authenticate(header);
      const grants = await first.grants();
      assert.equal(grants.can("repo.list", root), true);
      await t.store.db.deleteFrom("role_bindings").where("uid", "=", binding).execute();
      assert.equal(await first.grants(), grants, "memoized within the request");
      const second = await auth.authenticate(header);
      assert.equal((await second.grants()).can("repo.list", root), false);
    });

    test("API requests read the identity and its bindings side by side; the registry's only when asked", async () => {
      const identity = await addIdentity(root);
      await bind(identity, root, builtInRoleUid("viewer"));
      const events: string[] = [];
      const tableOf = (sql: string) =>
        sql.includes('from "role_bindings"') ? "role_bindings" : "identities";
      // Kysely keeps private fields: methods run on the real instance; executeQuery is watched.
      const watched = new Proxy(t.store.db, {
        get(target, property) {
          if (property === "executeQuery") {
            return async (query: CompiledQuery) => {
              events.push(`start ${tableOf(query.sql)}`);
              const result = await target.executeQuery(query);
              events.push(`end ${tableOf(query.sql)}`);
              return result;
            };
          }
          const value = Reflect.get(target, property, target);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const watchedAuth = createAuthenticator({ db: watched, tokens, audience: api });
      const principal = await watchedAuth.authenticate(await bearer(identity));
      assert.deepEqual(events.slice(0, 2).sort(), ["start identities", "start role_bindings"]);
      assert.equal((await principal.grants()).can("repo.list", root), true);
      assert.equal(events.length, 4, "the grants need no further read");
      events.length = 0;
      const claims = await tokens.verify((await bearer(identity)).slice(7), { audience: api });
      const registryPrincipal = await watchedAuth.principalFor(claims);
      assert.deepEqual(events, ["start identities", "end identities"]);
      assert.equal((await registryPrincipal.grants()).can("repo.list", root), true);
      assert.deepEqual(events.slice(2), ["start role_bindings", "end role_bindings"]);
    });

    test("refuses missing, malformed, foreign-audience and orphaned credentials", async () => {
      await rejects(auth.authenticate(undefined), 16, "TOKEN_MISSING");
      await rejects(auth.authenticate("  "), 16, "TOKEN_MISSING");
      await rejects(auth.authenticate("Basic dXNlcjpwYXNz"), 16, "TOKEN_MALFORMED");
      await rejects(auth.authenticate("Bearer not-a-jwt"), 16, "TOKEN_MALFORMED");
      const identity = await addIdentity(root);
      await rejects(
        auth.authenticate(await bearer(identity, "registry.lading.example")),
        7,
        "TOKEN_AUDIENCE",
      );
      const header = await bearer(identity);
      await t.store.db.deleteFrom("identities").where("uid", "=", identity).execute();
      await rejects(auth.authenticate(header), 16, "IDENTITY_NOT_FOUND");
    });
  });
}
