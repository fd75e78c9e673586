import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import type { MetadataStore } from "../store/metadata/index.ts";
import { pruneEvents } from "./prune-events.ts";

/** Times one day apart: events on day 1–3 are old against a cutoff on day 4. */
const day = (n: number) => `2026-01-0${n}T00:00:00.000Z`;

for (const kind of storeKinds) {
  describe(`pruneEvents [${kind}]`, () => {
    let store: MetadataStore;
    let close: () => Promise<void>;

    /** Records an event at `time` with one delivery per given state; returns its seq. */
    async function event(time: string, states: string[] = []): Promise<string> {
      const row = await store.db
        .insertInto("events")
        .values({
          id: crypto.randomUUID(),
          type: "dev.lading.test.v1",
          source: "https://lading.example",
          subject: "s",
          group_uid: "g",
          time,
          body_type: "",
          extensions: "{}",
          data: "{}",
        })
        .returning("seq")
        .executeTakeFirstOrThrow();
      const seq = String(row.seq);
      for (const [i, state] of states.entries()) {
        await store.db
          .insertInto("deliveries")
          .values({
            subscription_uid: `sub-${i}`,
            event_seq: seq,
            state,
            attempts: 1,
            next_time: time,
            lease_owner: "",
            lease_until: null,
            last_status: 0,
            last_error: "",
            latency_ms: 0,
            create_time: time,
            update_time: time,
          })
          .execute();
      }
      return seq;
    }

    const remaining = async () =>
      (await store.db.selectFrom("events").select("seq").orderBy("seq").execute()).map((r) =>
        String(r.seq),
      );
    const deliveriesOf = async (seq: string) =>
      (
        await store.db
          .selectFrom("deliveries")
          .select("state")
          .where("event_seq", "=", seq)
          .orderBy("subscription_uid")
          .execute()
      ).map((r) => r.state);

    before(async () => {
      ({ store, close } = await openTestStore(kind));
    });
    after(() => close());

    it("deletes old events with their finished deliveries, and keeps pending ones and new events", async () => {
      await event(day(1));
      const finished = await event(day(1), ["delivered", "dead"]);
      const waiting = await event(day(2), ["delivered", "pending"]);
      const young = await event(day(5), ["delivered"]);
      const pruned = await pruneEvents(store.db, { before: day(4) });
      assert.deepEqual(pruned, { events: 2, deliveries: 3 });
      assert.deepEqual(await remaining(), [waiting, young]);
      assert.deepEqual(await deliveriesOf(finished), []);
      assert.deepEqual(await deliveriesOf(waiting), ["pending"]);
      assert.deepEqual(await deliveriesOf(young), ["delivered"]);
      await store.db.deleteFrom("deliveries").execute();
      await store.db.deleteFrom("events").execute();
    });

    it("works through a backlog in batches, and stops at the first event that is not old", async () => {
      const old = [];
      for (let i = 0; i < 7; i++) old.push(await event(day(1)));
      const young = await event(day(5));
      // Recorded later with an earlier time (another replica's clock): left for the next prune.
      const skewed = await event(day(2));
      const pruned = await pruneEvents(store.db, { before: day(4), batch: 3 });
      assert.deepEqual(pruned, { events: 7, deliveries: 0 });
      assert.deepEqual(await remaining(), [young, skewed]);
      await store.db.deleteFrom("events").execute();
    });

    it("stops between batches when asked", async () => {
      for (let i = 0; i < 4; i++) await event(day(1));
      let batches = 0;
      const pruned = await pruneEvents(store.db, {
        before: day(4),
        batch: 2,
        stopped: () => batches++ > 0,
      });
      assert.equal(pruned.events, 2);
      assert.equal((await remaining()).length, 2);
      await store.db.deleteFrom("events").execute();
    });
  });
}
