import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openTestStore, storeKinds } from "../../../test/support/stores.ts";

for (const kind of storeKinds) {
  describe(`releaseMemory [${kind}]`, () => {
    it("gives the page cache back and the store keeps answering", async () => {
      const { store, close } = await openTestStore(kind);
      try {
        const before = await store.db.selectFrom("repos").select("uid").execute();
        await store.releaseMemory();
        await store.releaseMemory();
        assert.deepEqual(await store.db.selectFrom("repos").select("uid").execute(), before);
      } finally {
        await close();
      }
    });
  });
}
