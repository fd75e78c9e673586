import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openTestStore } from "../../test/support/stores.ts";
import type { MetadataStore } from "../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";
import { type NewEvent, recordEvent } from "./record-event.ts";

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`recordEvent [${kind}]`, () => {
    let store: MetadataStore;
    let close: () => Promise<void>;
    const org = newRootUid();
    const team = newChildUid(org);
    const other = newRootUid();
    const subscription = (parent: string, prefix = "") => ({
      uid: newChildUid(parent),
      parent_uid: parent,
      sink: "https://example.com/hook",
      type_prefix: prefix,
      create_time: "2026-01-01T00:00:00.000Z",
      update_time: "2026-01-01T00:00:00.000Z",
    });
    const onOrg = subscription(org);
    const onTeam = subscription(team);
    const pushesOnly = subscription(org, "dev.lading.registry.");
    const onOther = subscription(other);
    const event = (type: string, groupUid = team): NewEvent => ({
      type,
      source: "https://lading.example/iam/v2/groups",
      subject: groupUid,
      groupUid,
      actor: { subject: "someone" },
      body: { uid: groupUid },
    });

    before(async () => {
      ({ store, close } = await openTestStore(kind));
      await store.db
        .insertInto("subscriptions")
        .values([onOrg, onTeam, pushesOnly, onOther])
        .execute();
    });
    after(() => close());

    it("fans out to the subscriptions of the group and its ancestors, by type prefix", async () => {
      await recordEvent(store.db, event("dev.lading.iam.group.created.v1"));
      await recordEvent(store.db, event("dev.lading.registry.push.v1"));
      await recordEvent(store.db, event("dev.lading.iam.group.deleted.v1", org));
      const rows = await store.db
        .selectFrom("deliveries")
        .innerJoin("events", "events.seq", "deliveries.event_seq")
        .select(["deliveries.subscription_uid", "events.type", "deliveries.state"])
        .orderBy("events.seq")
        .orderBy("deliveries.subscription_uid")
        .execute();
      const got = rows.map((r) => `${r.type} → ${r.subscription_uid} ${r.state}`);
      const want = [
        ...[onOrg.uid, onTeam.uid]
          .sort()
          .map((u) => `dev.lading.iam.group.created.v1 → ${u} pending`),
        ...[onOrg.uid, onTeam.uid, pushesOnly.uid]
          .sort()
          .map((u) => `dev.lading.registry.push.v1 → ${u} pending`),
        `dev.lading.iam.group.deleted.v1 → ${onOrg.uid} pending`,
      ];
      assert.deepEqual(got, want);
      const stored = await store.db.selectFrom("events").selectAll().orderBy("seq").execute();
      assert.equal(stored.length, 3);
      assert.match(stored[0].id, /^[0-9a-f-]{36}$/);
      assert.deepEqual(JSON.parse(stored[0].data), {
        actor: { subject: "someone" },
        body: { uid: team },
      });
    });

    it("records nothing when the transaction rolls back", async () => {
      const before = await store.db.selectFrom("events").select("id").execute();
      await assert.rejects(
        store.db.transaction().execute(async (trx) => {
          await recordEvent(trx, event("dev.lading.iam.group.updated.v1"));
          throw new Error("the change failed");
        }),
        /the change failed/,
      );
      const after = await store.db.selectFrom("events").select("id").execute();
      assert.equal(after.length, before.length);
      const pending = await store.db
        .selectFrom("deliveries")
        .select("event_seq")
        .where("state", "=", "pending")
        .execute();
      assert.equal(pending.length, 6);
    });
  });
}
