import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type RunningLading, startLading } from "../../src/app/index.ts";
import { type ConfigInput, resolveConfig } from "../../src/config/index.ts";
import { recordEvent } from "../../src/events/index.ts";
import { createLogger } from "../../src/server/index.ts";
import { type EventSink, startEventSink } from "../support/event-sink.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds, type TestStore } from "../support/stores.ts";

const eventSettings: ConfigInput = {
  outboundAllow: "127.0.0.1",
  eventsTimeout: "10s",
  eventsBackoffBase: "50ms",
};

/** Another Lading process on `store`, as a replica or a restarted server would be. */
function startReplica(store: TestStore, extra: ConfigInput): Promise<RunningLading> {
  const config = resolveConfig(
    {
      dataDir: store.options.dataDir,
      databaseUrl: store.options.databaseUrl,
      registryListen: "127.0.0.1:0",
      ...eventSettings,
      ...extra,
    },
    {},
  );
  return startLading(config, createLogger({ level: "silent" }));
}

/** Subscriptions inserted directly: no created events, so the sink sees only what a test sends. */
async function addSubscriptions(lading: RunningLading, group: string, sinks: string[]) {
  const time = new Date().toISOString();
  const rows = sinks.map((sink, i) => ({
    uid: `${group}/${(i + 1).toString(16).padStart(16, "0")}`,
    parent_uid: group,
    sink,
    type_prefix: "",
    create_time: time,
    update_time: time,
  }));
  await lading.store.db.insertInto("subscriptions").values(rows).execute();
}

function record(lading: RunningLading, group: string, n: number) {
  return lading.store.db.transaction().execute((trx) =>
    recordEvent(trx, {
      type: "dev.lading.test.replica.v1",
      source: "https://lading.example/test",
      subject: group,
      groupUid: group,
      actor: { subject: "" },
      body: { n },
    }),
  );
}

for (const kind of storeKinds) {
  describe(`Event delivery across restarts [${kind}]`, () => {
    let server: TestServer;
    let sink: EventSink;
    let restarted: RunningLading | undefined;

    before(async () => {
      server = await startTestServer(kind, "acme", eventSettings);
      sink = await startEventSink(server.apiUrl, server.org.groupUid);
    });
    after(async () => {
      await restarted?.close({ timeoutMs: 2000 });
      await server.store.drop();
      await sink.close();
    });

    it("sends again, after a restart, what was in flight when the server stopped", async () => {
      const org = server.org.groupUid;
      await addSubscriptions(server.lading, org, [sink.url]);
      sink.mode = { kind: "slow", ms: 3000 };
      await record(server.lading, org, 1);
      await sink.waitFor((rs) => rs.length === 1);
      // Stopped mid-delivery: the attempt is cut and its lease given back.
      await server.lading.close({ timeoutMs: 300 });
      sink.mode = { kind: "ok" };
      const port = new URL(server.apiUrl).port;
      restarted = await startReplica(server.store, { apiListen: `127.0.0.1:${port}` });
      await record(restarted, org, 2);
      await sink.waitFor(() => sink.accepted().length === 2);
      assert.deepEqual(
        sink.accepted().map((r) => JSON.parse(r.body).body.n),
        [1, 2],
      );
      const first = sink.receipts[0];
      assert.equal(sink.accepted()[0].id, first.id, "the same event, sent at least once more");
      const db = restarted.store.db;
      const states = async () =>
        (await db.selectFrom("deliveries").select("state").execute()).map((r) => r.state);
      for (let i = 0; i < 100 && (await states()).includes("pending"); i++)
        await new Promise((r) => setTimeout(r, 50));
      const rows = await db.selectFrom("deliveries").selectAll().orderBy("event_seq").execute();
      assert.deepEqual(
        rows.map((r) => [r.state, r.attempts]),
        [
          ["delivered", 1],
          ["delivered", 1],
        ],
      );
    });
  });
}

describe("Two replicas on one PostgreSQL", () => {
  let server: TestServer;
  let second: RunningLading;
  let sink: EventSink;

  before(async () => {
    server = await startTestServer("postgres", "acme", eventSettings);
    // Replicas share one public API URL, the issuer of the tokens both sign.
    second = await startReplica(server.store, {
      apiListen: "127.0.0.1:0",
      apiUrl: server.apiUrl,
    });
    sink = await startEventSink(server.apiUrl, server.org.groupUid);
  });
  after(async () => {
    await second.close({ timeoutMs: 2000 });
    await server.close();
    await sink.close();
  });

  it("deliver each event once, in order per subscription", async () => {
    const org = server.org.groupUid;
    const sinks = [1, 2, 3].map((i) => `${sink.url}?s=${i}`);
    await addSubscriptions(server.lading, org, sinks);
    const count = 20;
    for (let n = 0; n < count; n++) await record(n % 2 ? second : server.lading, org, n);
    await sink.waitFor(() => sink.accepted().length >= count * 3, 30_000);
    await new Promise((r) => setTimeout(r, 500));
    assert.equal(sink.receipts.length, count * 3, "no event was sent twice");
    for (let i = 1; i <= 3; i++) {
      const got = sink.accepted().filter((r) => r.url.endsWith(`?s=${i}`));
      assert.deepEqual(
        got.map((r) => JSON.parse(r.body).body.n),
        [...Array(count).keys()],
      );
    }
  });
});
