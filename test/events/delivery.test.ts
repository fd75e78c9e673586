import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { recordEvent } from "../../src/events/index.ts";
import { SubscriptionsService } from "../../src/gen/lading/events/v2/subscriptions_pb.js";
import { grpcCaller, restCall } from "../support/api-client.ts";
import { type EventSink, startEventSink } from "../support/event-sink.ts";
import { type Loose, ok } from "../support/matrix.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

/** Deliveries end to end: a real server, a real sink verifying each request (reference §7.3). */
for (const kind of storeKinds) {
  describe(`Event delivery [${kind}]`, () => {
    let server: TestServer;
    let sink: EventSink;
    let org: string;
    const rest = (method: string, path: string, body?: Loose) =>
      restCall(server.apiUrl, server.org.token, method, path, body);
    const subscribe = async (sinkUrl: string, parent = org, typePrefix = "") =>
      ok(
        await rest("POST", `/events/v2/subscriptions/${parent}`, { sink: sinkUrl, typePrefix }),
      ) as Loose;
    const log = async (uid: string, query = "") =>
      ok(await rest("GET", `/events/v2/subscriptions/${uid}/deliveries${query}`)) as Loose;
    /** Records an event on `group` in its own transaction, as a domain RPC would. */
    const record = (type: string, group = org, body: unknown = { n: 1 }) =>
      server.lading.store.db.transaction().execute((trx) =>
        recordEvent(trx, {
          type,
          source: `${server.apiUrl}/test/v2/things`,
          subject: group,
          groupUid: group,
          actor: { subject: server.org.identityUid },
          body,
        }),
      );

    before(async () => {
      server = await startTestServer(kind, "acme", {
        outboundAllow: "127.0.0.1",
        eventsTimeout: "1s",
        eventsBackoffBase: "50ms",
      });
      org = server.org.groupUid;
      sink = await startEventSink(server.apiUrl, org);
    });
    after(async () => {
      await server?.close();
      await sink?.close();
    });

    it("delivers a subscription's own creation, signed, in CloudEvents binary mode", async () => {
      const created = await subscribe(sink.url);
      await sink.waitFor(
        () => sink.accepted("dev.lading.events.subscription.created").length === 1,
      );
      const [receipt] = sink.accepted("dev.lading.events.subscription.created");
      assert.equal(receipt.refused, "");
      assert.equal(receipt.headers["ce-specversion"], "1.0");
      assert.equal(receipt.headers["ce-source"], `${server.apiUrl}/events/v2/subscriptions`);
      assert.equal(receipt.headers["ce-subject"], created.uid);
      assert.equal(receipt.headers["ce-group"], org);
      assert.equal(receipt.headers["ce-audience"], "customer");
      assert.equal(receipt.headers["ce-actor"], server.org.identityUid);
      assert.equal(receipt.headers["ce-bodytype"], "lading.events.v2.Subscription");
      assert.match(String(receipt.headers["ce-time"]), /^\d{4}-\d\d-\d\dT.*Z$/);
      assert.equal(receipt.headers["content-type"], "application/json");
      assert.match(String(receipt.headers["user-agent"]), /^Lading\/\d+\.\d+\.\d+/);
      const data = JSON.parse(receipt.body);
      assert.equal(data.actor.subject, server.org.identityUid);
      assert.deepEqual(data.body, {
        uid: created.uid,
        sink: sink.url,
        createTime: created.createTime,
        updateTime: created.updateTime,
      });
      await waitUntil(
        async () => ((await log(created.uid)).deliveries as Loose[])[0]?.state === "delivered",
      );
      const entries = (await log(created.uid)).deliveries as Loose[];
      assert.equal(entries.length, 1);
      assert.equal(entries[0].eventId, receipt.id);
      assert.equal(entries[0].state, "delivered");
      assert.equal(entries[0].attempts, 1);
      assert.equal(entries[0].lastStatus, 200);
      assert.equal(entries[0].nextRetryTime ?? "", "");
      assert.ok(Number(entries[0].latencyMs ?? 0) >= 0);
      await rest("DELETE", `/events/v2/subscriptions/${created.uid}`);
    });

    it("sends a :test ping to that subscription only, and over gRPC too", async () => {
      const other = await startEventSink(server.apiUrl, org);
      try {
        const a = await subscribe(sink.url);
        await subscribe(other.url);
        await other.waitFor(() => other.accepted().length === 1);
        const grpc = grpcCaller(server.apiUrl, server.org.token);
        const pinged = ok(await grpc(SubscriptionsService, "testSubscription", { uid: a.uid }));
        assert.equal(pinged.eventType, "dev.lading.events.ping.v1");
        await sink.waitFor(() => sink.accepted().some((r) => r.id === pinged.eventId));
        // The other sink saw only its creation; the ping was not recorded for it.
        await new Promise((r) => setTimeout(r, 300));
        assert.deepEqual(
          other.accepted().map((r) => r.type),
          ["dev.lading.events.subscription.created.v1"],
        );
        await rest("DELETE", `/events/v2/subscriptions/${a.uid}`);
      } finally {
        await other.close();
      }
    });

    it("retries a sink that answers 503, then delivers every event in order", async () => {
      const s = await subscribe(sink.url, org, "dev.lading.test.");
      sink.mode = { kind: "status", status: 503 };
      for (let i = 0; i < 5; i++) await record(`dev.lading.test.order.v1`, org, { n: i });
      await sink.waitFor((rs) => rs.filter((r) => r.status === 503).length >= 3);
      await new Promise((r) => setTimeout(r, 50));
      const waiting = (await log(s.uid)).deliveries as Loose[];
      // Only the oldest event is tried while the sink fails; the others wait behind it.
      const tried = waiting.filter((d) => (d.attempts ?? 0) > 0);
      assert.equal(tried.length, 1);
      assert.equal(tried[0].lastStatus, 503);
      assert.equal(tried[0].lastError, "HTTP 503");
      assert.ok(tried[0].nextRetryTime);
      sink.mode = { kind: "ok" };
      await sink.waitFor(() => sink.accepted("dev.lading.test.order").length === 5);
      const order = sink.accepted("dev.lading.test.order").map((r) => JSON.parse(r.body).body.n);
      assert.deepEqual(order, [0, 1, 2, 3, 4]);
      // The sink counts a request before the dispatcher records its outcome.
      await waitUntil(async () =>
        ((await log(s.uid)).deliveries as Loose[]).every((d) => d.state === "delivered"),
      );
      const done = (await log(s.uid)).deliveries as Loose[];
      assert.deepEqual(
        done.map((d) => d.state),
        ["delivered", "delivered", "delivered", "delivered", "delivered"],
      );
      assert.ok((done.at(-1)?.attempts ?? 0) >= 2, "the first event took several attempts");
      await rest("DELETE", `/events/v2/subscriptions/${s.uid}`);
    });

    it("delivers every event a stopped receiver missed once it is back", async () => {
      const receiver = await startEventSink(server.apiUrl, org);
      const port = Number(new URL(receiver.url).port);
      const s = await subscribe(receiver.url, org, "dev.lading.test.down");
      await receiver.close();
      for (let i = 0; i < 4; i++) await record("dev.lading.test.down.v1", org, { n: i });
      await waitUntil(async () =>
        ((await log(s.uid)).deliveries as Loose[]).some((d) => (d.attempts ?? 0) > 0),
      );
      const [, , , oldest] = (await log(s.uid)).deliveries as Loose[];
      assert.equal(oldest.lastStatus ?? 0, 0);
      assert.match(oldest.lastError, /^request failed: ECONNREFUSED/);
      const back = await startEventSink(server.apiUrl, org, port);
      try {
        await back.waitFor(() => back.accepted("dev.lading.test.down").length === 4);
        assert.deepEqual(
          back.accepted("dev.lading.test.down").map((r) => JSON.parse(r.body).body.n),
          [0, 1, 2, 3],
        );
      } finally {
        await back.close();
        await rest("DELETE", `/events/v2/subscriptions/${s.uid}`);
      }
    });

    it("retries a sink slower than the timeout", async () => {
      const s = await subscribe(sink.url, org, "dev.lading.test.slow");
      sink.mode = { kind: "slow", ms: 1500 };
      await record("dev.lading.test.slow.v1");
      await sink.waitFor((rs) => rs.some((r) => r.type === "dev.lading.test.slow.v1"));
      await new Promise((r) => setTimeout(r, 1200));
      const [first] = (await log(s.uid)).deliveries as Loose[];
      assert.equal(first.state, "pending");
      assert.equal(first.lastError, "no answer within 1000 ms");
      assert.equal(first.lastStatus ?? 0, 0);
      sink.mode = { kind: "ok" };
      await sink.waitFor(() => sink.accepted("dev.lading.test.slow").length === 1);
      await waitUntil(
        async () => ((await log(s.uid)).deliveries as Loose[])[0].state === "delivered",
      );
      const [done] = (await log(s.uid)).deliveries as Loose[];
      assert.ok(done.attempts >= 2);
      assert.equal(done.lastError ?? "", "");
      const slow = sink.receipts.filter((r) => r.type === "dev.lading.test.slow.v1");
      await sink.waitFor(() => slow[0].status !== 0);
      assert.equal(slow[0].status, -1, "the sender gave up on the first attempt");
      await rest("DELETE", `/events/v2/subscriptions/${s.uid}`);
    });

    it("dead-letters a delivery still failing after the retry window, and redelivers it", async () => {
      const s = await subscribe(sink.url, org, "dev.lading.test.dead");
      sink.mode = { kind: "status", status: 500 };
      // Recorded 25 hours ago, as far as the window goes: the next failure is the last.
      await server.lading.store.db.transaction().execute(async (trx) => {
        await recordEvent(trx, {
          type: "dev.lading.test.dead.v1",
          source: "https://lading.example/test",
          subject: org,
          groupUid: org,
          actor: { subject: "" },
          body: {},
        });
        await trx
          .updateTable("deliveries")
          .set({ create_time: new Date(Date.now() - 25 * 3_600_000).toISOString() })
          .where("subscription_uid", "=", s.uid)
          .execute();
      });
      await waitUntil(async () => ((await log(s.uid)).deliveries as Loose[])[0].state === "dead");
      const [dead] = (await log(s.uid, "?state=dead")).deliveries as Loose[];
      assert.equal(dead.attempts, 1);
      assert.equal(dead.lastStatus, 500);
      assert.equal(dead.nextRetryTime ?? "", "");
      sink.mode = { kind: "ok" };
      const again = ok(
        await rest(
          "POST",
          `/events/v2/subscriptions/${s.uid}/deliveries/${dead.eventId}:redeliver`,
          {},
        ),
      );
      assert.equal(again.state, "pending");
      await sink.waitFor(() => sink.accepted().some((r) => r.id === dead.eventId));
      await waitUntil(
        async () => ((await log(s.uid)).deliveries as Loose[])[0].state === "delivered",
      );
      const [after] = (await log(s.uid)).deliveries as Loose[];
      assert.equal(after.attempts, 2);
      // A delivered event can be sent again too: the same Ce-Id arrives twice.
      ok(
        await rest(
          "POST",
          `/events/v2/subscriptions/${s.uid}/deliveries/${dead.eventId}:redeliver`,
          {},
        ),
      );
      await sink.waitFor(() => sink.accepted().filter((r) => r.id === dead.eventId).length === 2);
      const missing = await rest(
        "POST",
        `/events/v2/subscriptions/${s.uid}/deliveries/00000000-0000-4000-8000-000000000000:redeliver`,
        {},
      );
      assert.equal(missing.ok, false);
      assert.equal(!missing.ok && missing.httpStatus, 404);
      const malformed = await rest(
        "POST",
        `/events/v2/subscriptions/${s.uid}/deliveries/not-an-id:redeliver`,
        {},
      );
      assert.equal(!malformed.ok && malformed.httpStatus, 400);
      await rest("DELETE", `/events/v2/subscriptions/${s.uid}`);
    });

    it("pages the delivery log newest first", async () => {
      const s = await subscribe(sink.url, org, "dev.lading.test.page");
      for (let i = 0; i < 3; i++) await record("dev.lading.test.page.v1", org, { n: i });
      await sink.waitFor(() => sink.accepted("dev.lading.test.page").length === 3);
      const first = await log(s.uid, "?page_size=2");
      assert.equal(first.deliveries.length, 2);
      assert.ok(first.nextPageToken);
      const second = await log(s.uid, `?page_size=2&page_token=${first.nextPageToken}`);
      assert.equal(second.deliveries.length, 1);
      assert.equal(second.nextPageToken ?? "", "");
      const ids = [...first.deliveries, ...second.deliveries].map((d: Loose) => d.eventId);
      const sent = sink.accepted("dev.lading.test.page").map((r) => r.id);
      assert.deepEqual(ids, sent.reverse());
      const bad = await rest("GET", `/events/v2/subscriptions/${s.uid}/deliveries?state=lost`);
      assert.equal(!bad.ok && bad.httpStatus, 400);
      await rest("DELETE", `/events/v2/subscriptions/${s.uid}`);
    });

    it("sends a delivery whose lease a crashed replica held once the lease expires", async () => {
      const s = await subscribe(sink.url, org, "dev.lading.test.crash");
      await server.lading.store.db.transaction().execute(async (trx) => {
        await recordEvent(trx, {
          type: "dev.lading.test.crash.v1",
          source: "https://lading.example/test",
          subject: org,
          groupUid: org,
          actor: { subject: "" },
          body: {},
        });
        await trx
          .updateTable("deliveries")
          .set({ lease_owner: "crashed", lease_until: new Date(Date.now() + 1500).toISOString() })
          .where("subscription_uid", "=", s.uid)
          .execute();
      });
      const started = Date.now();
      await sink.waitFor(() => sink.accepted("dev.lading.test.crash").length === 1);
      assert.ok(Date.now() - started >= 1000, "not before the lease expired");
      await rest("DELETE", `/events/v2/subscriptions/${s.uid}`);
    });
  });
}

async function waitUntil(check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("the condition did not hold in time");
    await new Promise((r) => setTimeout(r, 50));
  }
}
