import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type Kysely, SelectQueryNode, TableNode } from "kysely";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";
import { createListEngine } from "./list-engine.ts";
import type { ListSpec } from "./list-query.ts";
import { createPageTokens } from "./page-token.ts";

const spec: ListSpec<"groups"> = {
  table: "groups",
  domain: "iam.lading.dev",
  fields: { uid: { column: "uid" }, name: { column: "name" } },
  defaultField: "name",
};

/** `db` with the table each query reads from noted in `seen`. */
function watched(db: Kysely<MetadataSchema>, seen: string[]): Kysely<MetadataSchema> {
  return db.withPlugin({
    transformQuery({ node }) {
      if (SelectQueryNode.is(node)) {
        for (const from of node.from?.froms ?? []) {
          if (TableNode.is(from)) seen.push(from.table.identifier.name);
        }
      }
      return node;
    },
    transformResult: async ({ result }) => result,
  });
}

for (const kind of storeKinds) {
  describe(`list engine pages [${kind}]`, () => {
    let opened: Awaited<ReturnType<typeof openTestStore>>;
    const org = newRootUid();
    const names = Array.from({ length: 30 }, (_, i) => `group-${String(i).padStart(2, "0")}`);
    before(async () => {
      opened = await openTestStore(kind);
      const now = new Date().toISOString();
      const times = { create_time: now, update_time: now };
      await opened.store.db
        .insertInto("groups")
        .values([
          { uid: org, parent_uid: "", name: "org", description: "", ...times },
          ...names.map((name) => ({
            uid: newChildUid(org),
            parent_uid: org,
            name,
            description: `about ${name}`,
            ...times,
          })),
        ])
        .execute();
    });
    after(() => opened.close());

    const page = (db: Kysely<MetadataSchema>, skip: number, pageToken = "") =>
      createListEngine(db, createPageTokens("secret")).list(spec, {
        parameters: {
          uidp: { descendantsOf: "", childrenOf: org },
          pageSize: 10,
          pageToken,
          orderBy: "name",
          skip,
        },
        filters: {},
        visible: { scopes: [org] },
        caller: "",
      });

    it("reads a first page's rows with its keys, and past a skip the page's rows by uid", async () => {
      const seen: string[] = [];
      const db = watched(opened.store.db, seen);
      const first = await page(db, 0);
      assert.deepEqual(
        first.rows.map((r) => r.name),
        names.slice(0, 10),
      );
      assert.deepEqual(Object.keys(first.rows[0]).sort(), [
        "create_time",
        "description",
        "name",
        "parent_uid",
        "uid",
        "update_time",
      ]);
      assert.equal(first.rows[3].description, `about ${names[3]}`);
      assert.equal(seen.filter((table) => table === "groups").length, 1, seen.join("\n"));

      seen.length = 0;
      const skipped = await page(db, 15);
      assert.deepEqual(
        skipped.rows.map((r) => r.name),
        names.slice(15, 25),
      );
      assert.equal(skipped.rows[0].description, `about ${names[15]}`);
      assert.equal(seen.filter((table) => table === "groups").length, 2, seen.join("\n"));

      const next = await page(db, 0, first.nextPageToken);
      assert.deepEqual(
        next.rows.map((r) => r.name),
        names.slice(10, 20),
      );
    });
  });
}
