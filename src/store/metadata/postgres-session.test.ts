import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { openTestStore } from "../../../test/support/stores.ts";
import type { MetadataStore } from "./index.ts";

describe("PostgreSQL sessions", () => {
  let store: MetadataStore;
  let close: () => Promise<void>;
  before(async () => {
    ({ store, close } = await openTestStore("postgres"));
  });
  after(() => close());

  it("run with JIT compilation off, whatever the server's default", async () => {
    // Several at once, so that more than one pooled connection is asked.
    const answers = await Promise.all(
      Array.from({ length: 4 }, () => sql<{ jit: string }>`show jit`.execute(store.db)),
    );
    for (const answer of answers) assert.equal(answer.rows[0].jit, "off");
  });
});
