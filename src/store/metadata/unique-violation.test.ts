import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { createTestStore, storeKinds, type TestStore } from "../../../test/support/stores.ts";
import { createMetadataStore, type MetadataStore } from "./metadata-store.ts";
import { isUniqueViolation } from "./unique-violation.ts";

for (const kind of storeKinds) {
  describe(`isUniqueViolation [${kind}]`, () => {
    let location: TestStore;
    let store: MetadataStore;
    /** What `statement` throws, run against the probe table. */
    const thrown = async (statement: string) => {
      try {
        await sql.raw(statement).execute(store.db);
      } catch (error) {
        return error;
      }
      assert.fail(`${statement} did not fail`);
    };
    before(async () => {
      location = await createTestStore(kind);
      store = createMetadataStore(location.options);
      await sql
        .raw("CREATE TABLE unique_probe (k text PRIMARY KEY, u text UNIQUE, n text NOT NULL)")
        .execute(store.db);
      await sql.raw("INSERT INTO unique_probe VALUES ('k', 'u', 'n')").execute(store.db);
    });
    after(async () => {
      await store?.close();
      await location?.drop();
    });

    it("recognises a second row with the same primary key", async () => {
      assert.equal(
        isUniqueViolation(await thrown("INSERT INTO unique_probe VALUES ('k', 'v', 'n')")),
        true,
      );
    });

    it("recognises a second row with the same unique value", async () => {
      assert.equal(
        isUniqueViolation(await thrown("INSERT INTO unique_probe VALUES ('l', 'u', 'n')")),
        true,
      );
    });

    it("is false for other constraint failures and other errors", async () => {
      assert.equal(
        isUniqueViolation(await thrown("INSERT INTO unique_probe VALUES ('m', 'w', NULL)")),
        false,
      );
      assert.equal(isUniqueViolation(await thrown("SELECT nothing FROM unique_probe")), false);
      assert.equal(isUniqueViolation(undefined), false);
    });
  });
}
