import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { sql } from "kysely";
import { createTestStore } from "../../../test/support/stores.ts";
import { createMetadataStore } from "./metadata-store.ts";

describe("keepStatistics [sqlite]", () => {
  it("analyzes by default, and not when a worker's second store says keepStatistics: false", async () => {
    const location = await createTestStore("sqlite");
    try {
      const analyzed = async (keepStatistics?: boolean) => {
        const store = createMetadataStore({ ...location.options, keepStatistics });
        try {
          await store.migrate();
          const { rows } = await sql<{
            name: string;
          }>`select name from sqlite_master where name = 'sqlite_stat1'`.execute(store.db);
          return rows.length > 0;
        } finally {
          await store.close();
        }
      };
      assert.equal(await analyzed(false), false);
      assert.equal(await analyzed(), true);
    } finally {
      await location.drop();
    }
  });
});
