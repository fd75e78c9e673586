import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import {
  createRefreshTokens,
  hashSecret,
  type RefreshTokens,
  refreshReasons,
} from "./refresh-tokens.ts";

const day = 86_400_000;

for (const kind of storeKinds) {
  describe(`refresh tokens [${kind}]`, () => {
    let opened: Awaited<ReturnType<typeof openTestStore>>;
    let now = Date.parse("2030-01-01T00:00:00.000Z");
    let tokens: RefreshTokens;
    const refusal = (reason: string) => (error: unknown) => {
      assert.equal((error as { reason?: string }).reason, reason);
      return true;
    };

    before(async () => {
      opened = await openTestStore(kind);
      tokens = createRefreshTokens({ db: opened.store.db, clock: () => now });
    });
    after(() => opened?.close());

    it("issues opaque tokens stored only as their SHA-256 with a 30-day family expiry", async () => {
      const issued = await tokens.issue("a".repeat(40));
      assert.match(issued.token, /^lrt_[A-Za-z0-9_-]{43}$/);
      assert.equal(issued.expireTime, new Date(now + 30 * day).toISOString());
      const rows = await opened.store.db
        .selectFrom("refresh_tokens")
        .selectAll()
        .where("family", "=", issued.family)
        .execute();
      assert.equal(rows.length, 1);
      assert.equal(rows[0].token_hash, hashSecret(issued.token));
      assert.ok(!JSON.stringify(rows).includes(issued.token));
    });

    it("rotates within the family and keeps its absolute expiry", async () => {
      const first = await tokens.issue("b".repeat(40));
      now += day;
      const second = await tokens.rotate(first.token);
      assert.notEqual(second.token, first.token);
      assert.equal(second.family, first.family);
      assert.equal(second.identityUid, "b".repeat(40));
      assert.equal(second.expireTime, first.expireTime);
    });

    it("revokes the family when a spent token comes back", async () => {
      const first = await tokens.issue("c".repeat(40));
      const second = await tokens.rotate(first.token);
      await assert.rejects(tokens.rotate(first.token), refusal(refreshReasons.reused));
      await assert.rejects(tokens.rotate(second.token), refusal(refreshReasons.invalid));
    });

    it("refuses unknown and expired tokens; logout revokes the family", async () => {
      await assert.rejects(tokens.rotate("lrt_unknown"), refusal(refreshReasons.invalid));
      await assert.rejects(tokens.revokeFamily("lrt_unknown"), refusal(refreshReasons.invalid));
      const old = await tokens.issue("d".repeat(40));
      now += 31 * day;
      await assert.rejects(tokens.rotate(old.token), refusal(refreshReasons.invalid));
      const live = await tokens.issue("d".repeat(40));
      const next = await tokens.rotate(live.token);
      await tokens.revokeFamily(live.token);
      await assert.rejects(tokens.rotate(next.token), refusal(refreshReasons.invalid));
    });

    it("drops expired rows when issuing", async () => {
      const old = await tokens.issue("e".repeat(40));
      now += 31 * day;
      await tokens.issue("e".repeat(40));
      const left = await opened.store.db
        .selectFrom("refresh_tokens")
        .select("family")
        .where("family", "=", old.family)
        .execute();
      assert.deepEqual(left, []);
    });
  });
}
