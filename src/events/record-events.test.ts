import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { sql } from "kysely";
import { createTestStore, openTestStore, storeKinds } from "../../test/support/stores.ts";
import { createMetadataStore, type MetadataStore } from "../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";
import type { NewEvent } from "./record-event.ts";
import { recordEvents } from "./record-events.ts";

for (const kind of storeKinds) {
  describe(`recordEvents [${kind}]`, () => {
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
    const pushesOnly = subscription(org, "dev.lading.registry.push");
    const onOther = subscription(other);
    const event = (type: string, groupUid: string, n: number): NewEvent => ({
      type,
      source: "http://registry.example",
      subject: `${groupUid}/${n}`,
      groupUid,
      actor: { subject: "" },
      body: { n },
    });

    before(async () => {
      ({ store, close } = await openTestStore(kind));
      await store.db
        .insertInto("subscriptions")
        .values([onOrg, onTeam, pushesOnly, onOther])
        .execute();
    });
    after(() => close());

    it("gives events UUIDv7 ids whose clock follows the order they were recorded in", async () => {
      const batch = Array.from({ length: 300 }, (_, n) =>
        event("dev.lading.registry.pull.v1", other, n),
      );
      await recordEvents(store.db, batch);
      const rows = await store.db
        .selectFrom("events")
        .select(["id", "seq"])
        .where("group_uid", "=", other)
        .orderBy("seq")
        .execute();
      assert.equal(rows.length, 300);
      for (const row of rows) {
        assert.match(
          row.id,
          /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
        );
      }
      // The clock prefix never goes back: new ids land at the end of the id index.
      const clocks = rows.map((r) => r.id.slice(0, 13));
      assert.deepEqual(clocks, [...clocks].sort(), "id clocks follow the order of recording");
      const clock = Number.parseInt(rows[0].id.slice(0, 13).replace("-", ""), 16);
      assert.ok(Math.abs(clock - Date.now()) < 60_000, "the prefix is the millisecond clock");
      await store.db.deleteFrom("deliveries").execute();
      await store.db.deleteFrom("events").execute();
    });

    it("fans a batch out exactly as recordEvent fans out each event", async () => {
      await recordEvents(store.db, [
        event("dev.lading.registry.pull.v1", team, 1),
        event("dev.lading.registry.push.v1", org, 2),
        event("dev.lading.registry.pull.v1", newRootUid(), 3),
        event("dev.lading.registry.pull.v1", org, 4),
      ]);
      const rows = await store.db
        .selectFrom("deliveries")
        .innerJoin("events", "events.seq", "deliveries.event_seq")
        .select(["deliveries.subscription_uid", "events.subject"])
        .orderBy("events.seq")
        .orderBy("deliveries.subscription_uid")
        .execute();
      const got = rows.map((r) => `${r.subject} → ${r.subscription_uid}`);
      const want = [
        ...[onOrg.uid, onTeam.uid].sort().map((u) => `${team}/1 → ${u}`),
        ...[onOrg.uid, pushesOnly.uid].sort().map((u) => `${org}/2 → ${u}`),
        `${org}/4 → ${onOrg.uid}`,
      ];
      assert.deepEqual(got, want);
      const stored = await store.db
        .selectFrom("events")
        .select(["subject", "data"])
        .orderBy("seq")
        .execute();
      assert.deepEqual(
        stored.map((s) => [s.subject, JSON.parse(s.data).body.n]),
        [
          [`${team}/1`, 1],
          [`${org}/2`, 2],
          [stored[2].subject, 3],
          [`${org}/4`, 4],
        ],
      );
    });
  });
}

describe("recordEvents [postgres, prepared inserts]", () => {
  it("keeps the event inserts prepared on the connection: one per batch size, reused", async () => {
    const location = await createTestStore("postgres");
    // One connection, so the session asked about its prepared statements is the one that ran them.
    const store = createMetadataStore({ ...location.options, poolSize: 1 });
    try {
      await store.migrate();
      const event = (i: number): NewEvent => ({
        type: "dev.lading.test.v1",
        source: "test",
        subject: `s${i}`,
        groupUid: newRootUid(),
        actor: { subject: "someone" },
        body: { i },
      });
      for (let round = 0; round < 2; round++) {
        await recordEvents(
          store.db,
          Array.from({ length: 5 }, (_, i) => event(i)),
        );
      }
      const { rows } = await sql<{
        statement: string;
      }>`select statement from pg_prepared_statements`.execute(store.db);
      // Five events are a batch of four and one of one, in each round.
      const inserts = rows.filter((r) => r.statement.startsWith('insert into "events"'));
      assert.equal(inserts.length, 2);
      assert.equal((await store.db.selectFrom("events").select("seq").execute()).length, 10);
    } finally {
      await store.close();
      await location.drop();
    }
  });
});
