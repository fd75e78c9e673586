import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { calculateJwkThumbprint } from "jose";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import { createSigningKeys } from "./signing-keys.ts";

const day = 24 * 60 * 60 * 1000;

for (const kind of storeKinds) {
  describe(`signing keys on ${kind}`, () => {
    let t: Awaited<ReturnType<typeof openTestStore>>;
    before(async () => {
      t = await openTestStore(kind);
    });
    after(() => t.close());

    test("the first start makes exactly one key, even with replicas racing", async () => {
      const { db } = t.store;
      const replicas = [1, 2, 3].map(() => createSigningKeys({ db }));
      const keys = await Promise.all(replicas.map((r) => r.signingKey()));
      assert.equal(new Set(keys.map((k) => k.kid)).size, 1);
      const rows = await db.selectFrom("signing_keys").selectAll().execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0].kid, keys[0].kid);
      assert.equal(
        Date.parse(rows[0].expire_time) - Date.parse(rows[0].create_time),
        30 * day + 30 * day,
      );

      const restarted = createSigningKeys({ db });
      assert.equal((await restarted.signingKey()).kid, keys[0].kid);

      const { keys: published } = await restarted.jwks();
      assert.equal(published.length, 1);
      const [jwk] = published;
      assert.equal(jwk.kid, keys[0].kid);
      assert.equal(jwk.kid, await calculateJwkThumbprint(jwk));
      assert.deepEqual(
        { kty: jwk.kty, crv: jwk.crv, alg: jwk.alg, use: jwk.use },
        { kty: "EC", crv: "P-256", alg: "ES256", use: "sig" },
      );
      assert.equal(jwk.d, undefined);
      await db.deleteFrom("signing_keys").execute();
      await db.deleteFrom("settings").execute();
    });

    test("rotates after rotateAfterMs and retires the old key at its expire time", async () => {
      const { db } = t.store;
      let now = Date.parse("2031-01-01T00:00:00.000Z");
      const options = {
        db,
        rotateAfterMs: 10 * day,
        maxTokenLifetimeMs: day,
        refreshAfterMs: 0,
        unknownKidReloadMs: 20,
        clock: () => now,
      };
      const a = createSigningKeys(options);
      const b = createSigningKeys({ ...options, refreshAfterMs: 60_000 });
      const first = await a.signingKey();
      assert.ok(await b.verificationKey(first.kid));

      now += 9 * day;
      assert.equal((await a.signingKey()).kid, first.kid);

      now += 1.5 * day;
      const second = await a.signingKey();
      assert.notEqual(second.kid, first.kid);
      assert.deepEqual(
        (await a.jwks()).keys.map((k) => k.kid),
        [second.kid, first.kid],
      );
      assert.ok(await b.verificationKey(second.kid), "another replica finds the new kid");
      assert.equal((await b.signingKey()).kid, second.kid, "and signs with the newest key");
      assert.ok(await a.verificationKey(first.kid), "the old key still verifies");

      const firstRow = await db
        .selectFrom("signing_keys")
        .select("expire_time")
        .where("kid", "=", first.kid)
        .executeTakeFirstOrThrow();
      assert.equal(
        firstRow.expire_time,
        new Date(Date.parse("2031-01-12T00:00:00.000Z")).toISOString(),
      );

      now = Date.parse(firstRow.expire_time) + 1;
      assert.deepEqual(
        (await a.jwks()).keys.map((k) => k.kid),
        [second.kid],
      );
      assert.equal(await a.verificationKey(first.kid), undefined);
      const kids = await db.selectFrom("signing_keys").select("kid").execute();
      assert.deepEqual(
        kids.map((k) => k.kid),
        [second.kid],
      );
    });

    test("unknown kids are answered from memory after one rate-limited reload", async () => {
      const keys = createSigningKeys({ db: t.store.db, unknownKidReloadMs: 200 });
      await keys.jwks();
      const started = performance.now();
      const results = await Promise.all(
        ["x", "y", "z"].map((kid) => keys.verificationKey(`forged-${kid}`)),
      );
      assert.deepEqual(results, [undefined, undefined, undefined]);
      assert.ok(performance.now() - started >= 150, "reload waited for the rate limit");
    });
  });
}
