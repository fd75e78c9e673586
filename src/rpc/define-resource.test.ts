import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import { createGrants } from "../auth/index.ts";
import { permissionDenied } from "../errors/index.ts";
import { createListEngine, type ListParameters } from "../lists/index.ts";
import { createPageTokens } from "../lists/page-token.ts";
import type { GroupsTable } from "../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";
import type { Call } from "./call.ts";
import {
  defineResource,
  type ResourceContext,
  type ResourceDefinition,
} from "./define-resource.ts";

type GroupResource = ResourceDefinition<"groups", string>;

const base: GroupResource = {
  table: "groups",
  domain: "test",
  type: "group",
  see: "groups.list",
  sortFields: { uid: { column: "uid" }, name: { column: "name" } },
  toMessage: (row) => row.name,
};

/** A caller holding `capabilities` on each of `groups`. */
function callerWith(groups: string[], capabilities = ["groups.list"]): Call {
  const grants = createGrants(
    "",
    groups.map((groupUid) => ({ groupUid, capabilities })),
  );
  return {
    principal: { identityUid: "caller", claims: {}, grants: async () => grants },
    requestId: "test",
    signal: new AbortController().signal,
  };
}

const parameters = (overrides: Partial<ListParameters> = {}): ListParameters => ({
  pageSize: 0,
  pageToken: "",
  orderBy: "",
  skip: 0,
  ...overrides,
});

const codeOf = (error: unknown) => (error as { reason?: string }).reason;

for (const kind of storeKinds) {
  describe(`defineResource [${kind}]`, () => {
    let opened: Awaited<ReturnType<typeof openTestStore>>;
    let ctx: ResourceContext;
    const org = newRootUid();
    const a = newChildUid(org);
    const b = newChildUid(org);
    const c = newChildUid(b);
    const under = (parent: string) =>
      parameters({ uidp: { descendantsOf: "", childrenOf: parent } });

    before(async () => {
      opened = await openTestStore(kind);
      const time = new Date().toISOString();
      const row = (uid: string, parent_uid: string, name: string): GroupsTable => ({
        uid,
        parent_uid,
        name,
        description: "",
        create_time: time,
        update_time: time,
      });
      await opened.store.db
        .insertInto("groups")
        .values([
          row(org, "", "org"),
          row(a, org, "alpha"),
          row(b, org, "beta"),
          row(c, b, "gamma"),
        ])
        .execute();
      ctx = {
        db: opened.store.db,
        lists: createListEngine(opened.store.db, createPageTokens("k")),
      };
    });
    after(() => opened.close());

    it("lists only what the caller's grants reach, as messages", async () => {
      const groups = defineResource({ ...base, defaultOrder: "name" });
      const seen = await groups.list(ctx, callerWith([b]), parameters());
      assert.deepEqual(seen.items, ["beta", "gamma"]);
      assert.equal(seen.totalCount, 2n);
      const none = await groups.list(ctx, callerWith([]), parameters());
      assert.deepEqual(none.items, []);
    });

    it("an empty order_by is the default order, and its page tokens follow it", async () => {
      const groups = defineResource({ ...base, defaultOrder: "name desc" });
      const caller = callerWith([org]);
      const first = await groups.list(ctx, caller, { ...under(org), pageSize: 1 });
      assert.deepEqual(first.items, ["beta"]);
      const second = await groups.list(ctx, caller, {
        ...under(org),
        pageSize: 1,
        orderBy: "  ",
        pageToken: first.nextPageToken,
      });
      assert.deepEqual(second.items, ["alpha"]);
      const ascending = await groups.list(ctx, caller, { ...under(org), orderBy: "name" });
      assert.deepEqual(ascending.items, ["alpha", "beta"]);
    });

    it("listedUnder shows those parents' children to every caller, and only in lists", async () => {
      const open = defineResource({ ...base, defaultOrder: "name", listedUnder: [org] });
      const stranger = callerWith([]);
      assert.deepEqual((await open.list(ctx, stranger, parameters())).items, ["alpha", "beta"]);
      assert.deepEqual((await defineResource(base).list(ctx, stranger, parameters())).items, []);
    });

    it("grantsAt says whether a row is reached through its parent or itself", async () => {
      const heldAtB = callerWith([b]);
      const atParent = defineResource({ ...base, grantsAt: "parent" });
      const atRow = defineResource({ ...base, grantsAt: "row" });
      assert.equal(await atRow.get(ctx, heldAtB, b), "beta");
      await assert.rejects(atParent.get(ctx, heldAtB, b), (e) => codeOf(e) === "NOT_FOUND");
      assert.equal(await atParent.get(ctx, heldAtB, c), "gamma");
    });

    it("load refuses a missing row, a row out of reach and a missing act; find returns nothing", async () => {
      const groups = defineResource({ ...base, grantsAt: "row" });
      const caller = callerWith([org]);
      const missing = newChildUid(org);
      await assert.rejects(groups.load(ctx, caller, missing), (e) => codeOf(e) === "NOT_FOUND");
      assert.equal(await groups.find(ctx, caller, missing), undefined);
      await assert.rejects(groups.load(ctx, callerWith([a]), b), (e) => codeOf(e) === "NOT_FOUND");
      await assert.rejects(
        groups.load(ctx, caller, a, { act: "groups.update" }),
        (e) => codeOf(e) === "PERMISSION_DENIED",
      );
      const editor = callerWith([org], ["groups.list", "groups.update"]);
      assert.equal((await groups.load(ctx, editor, a, { act: "groups.update" })).name, "alpha");
      await assert.rejects(
        groups.load(ctx, caller, "not a uid", { field: "group.uid" }),
        (e) =>
          codeOf(e) === "INVALID_ARGUMENT" &&
          (e as { fieldViolations: { field: string }[] }).fieldViolations[0].field === "group.uid",
      );
    });

    it("admit shows every row to the callers it lets through, and refuses the others", async () => {
      const admitted = callerWith([]);
      const admit = (call: Call) => {
        if (call !== admitted) throw permissionDenied("test", "operators only");
      };
      const all = defineResource({ ...base, defaultOrder: "name", admit });
      const page = await all.list(ctx, admitted, parameters({ pageSize: 3 }));
      assert.deepEqual(page.items, ["alpha", "beta", "gamma"]);
      assert.equal(page.totalCount, 4n, "counted from the rows");
      const next = await all.list(ctx, admitted, parameters({ pageToken: page.nextPageToken }));
      assert.deepEqual(next.items, ["org"]);
      assert.equal(await all.get(ctx, admitted, c), "gamma");
      await assert.rejects(all.get(ctx, admitted, "no-such-row"), (e) => codeOf(e) === "NOT_FOUND");
      assert.equal(await all.find(ctx, admitted, "no-such-row"), undefined);
      const holder = callerWith([org]);
      for (const refused of [
        all.list(ctx, holder, parameters()),
        all.get(ctx, holder, a),
        all.find(ctx, holder, a),
      ]) {
        await assert.rejects(refused, (e) => codeOf(e) === "PERMISSION_DENIED");
      }
    });

    it("hydrate turns a whole page into messages in one call", async () => {
      const calls: number[] = [];
      const groups = defineResource<"groups", string>({
        ...base,
        toMessage: undefined,
        defaultOrder: "name",
        hydrate: async (_db, rows) => {
          calls.push(rows.length);
          return rows.map((r) => r.name.toUpperCase());
        },
      });
      const page = await groups.list(ctx, callerWith([org]), under(org));
      assert.deepEqual(page.items, ["ALPHA", "BETA"]);
      assert.equal(await groups.get(ctx, callerWith([org]), c), "GAMMA");
      assert.deepEqual(calls, [2, 1]);
    });
  });
}
