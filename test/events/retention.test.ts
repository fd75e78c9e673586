import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { restCall } from "../support/api-client.ts";
import { type EventSink, startEventSink } from "../support/event-sink.ts";
import { type Loose, ok } from "../support/matrix.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

/** --events-retention: a real server deletes its old events and their deliveries on its own. */
for (const kind of storeKinds) {
  describe(`Event retention [${kind}]`, () => {
    let server: TestServer;
    let sink: EventSink;
    const rest = (method: string, path: string, body?: Loose) =>
      restCall(server.apiUrl, server.org.token, method, path, body);
    const events = (type: string) =>
      server.lading.store.db.selectFrom("events").select("seq").where("type", "=", type).execute();

    before(async () => {
      server = await startTestServer(
        kind,
        "acme",
        {
          outboundAllow: "127.0.0.1",
          eventsRetryWindow: "2s",
          eventsRetention: "2s",
          eventsBackoffBase: "50ms",
        },
        undefined,
        { eventsPruneIntervalMs: 200 },
      );
      sink = await startEventSink(server.apiUrl, server.org.groupUid);
    });
    after(async () => {
      await server?.close();
      await sink?.close();
    });

    it("delivers an event, then deletes it and its delivery once it is older than the retention", async () => {
      const created = ok(
        await rest("POST", `/events/v2/subscriptions/${server.org.groupUid}`, { sink: sink.url }),
      ) as Loose;
      const type = "dev.lading.events.subscription.created.v1";
      await sink.waitFor(() => sink.accepted(type).length === 1);
      assert.equal((await events(type)).length, 1);
      const log = ok(await rest("GET", `/events/v2/subscriptions/${created.uid}/deliveries`));
      assert.equal((log.deliveries as Loose[]).length, 1);

      const deadline = Date.now() + 15_000;
      while ((await events(type)).length > 0) {
        assert.ok(Date.now() < deadline, "the old event is still there after 15 s");
        await sleep(100);
      }
      const after = ok(await rest("GET", `/events/v2/subscriptions/${created.uid}/deliveries`));
      assert.deepEqual(after.deliveries ?? [], []);

      // A new event is kept, and delivered as usual.
      ok(await rest("POST", `/events/v2/subscriptions/${created.uid}:test`, {}));
      await sink.waitFor(() => sink.accepted("dev.lading.events.ping.v1").length === 1);
      assert.equal((await events("dev.lading.events.ping.v1")).length, 1);
    });
  });
}
