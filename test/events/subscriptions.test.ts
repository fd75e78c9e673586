import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { bootstrapOrganisation } from "../../src/app/index.ts";
import { SubscriptionsService } from "../../src/gen/lading/events/v2/subscriptions_pb.js";
import { grpcCaller, type Result, restCall } from "../support/api-client.ts";
import { holder } from "../support/iam-fixtures.ts";
import { type Loose, ok, timestamp, violations } from "../support/matrix.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

const sink = "https://hooks.example.com/lading";

/** Subscriptions: fields, validation of the sink, and who may do what. */
for (const kind of storeKinds) {
  describe(`Subscriptions [${kind}]`, () => {
    let server: TestServer;
    let strict: TestServer;
    let org: string;
    let mine: Loose;
    const as = (token: string | undefined) => ({
      call: (method: string, path: string, body?: Loose) =>
        restCall(server.apiUrl, token, method, path, body),
    });
    const owner = () => as(server.org.token);
    /** Every RPC on `uid` (or under `parent`), as `token`. */
    const everyCall = (token: string | undefined, uid: string, parent: string) => {
      const api = as(token);
      return {
        list: () => api.call("GET", "/events/v2/subscriptions"),
        get: () => api.call("GET", `/events/v2/subscriptions/${uid}`),
        create: () => api.call("POST", `/events/v2/subscriptions/${parent}`, { sink }),
        delete: () => api.call("DELETE", `/events/v2/subscriptions/${uid}`),
        deliveries: () => api.call("GET", `/events/v2/subscriptions/${uid}/deliveries`),
        redeliver: () =>
          api.call("POST", `/events/v2/subscriptions/${uid}/deliveries/x:redeliver`, {}),
        test: () => api.call("POST", `/events/v2/subscriptions/${uid}:test`, {}),
      };
    };
    const status = (r: Result) => (r.ok ? 200 : r.httpStatus);

    before(async () => {
      server = await startTestServer(kind, "acme", { eventsAllowHttpLoopback: "true" });
      org = server.org.groupUid;
      mine = ok(await owner().call("POST", `/events/v2/subscriptions/${org}`, { sink }));
    });
    after(async () => {
      await server?.close();
      await strict?.close();
    });

    it("creates, reads, lists and deletes a subscription", async () => {
      assert.match(mine.uid, new RegExp(`^${org}/[0-9a-f]{16}$`));
      assert.equal(mine.sink, sink);
      assert.match(mine.createTime, timestamp);
      const got = ok(await owner().call("GET", `/events/v2/subscriptions/${mine.uid}`));
      assert.deepEqual(got, mine);
      const filtered = ok(
        await owner().call("POST", `/events/v2/subscriptions/${org}`, {
          sink: "https://hooks.example.com/pushes",
          typePrefix: "dev.lading.registry.",
        }),
      );
      const list = ok(
        await owner().call(
          "GET",
          `/events/v2/subscriptions?uidp.children_of=${org}&order_by=created_at`,
        ),
      );
      assert.deepEqual(
        list.subscriptions.map((s: Loose) => [s.uid, s.typePrefix ?? ""]),
        [
          [mine.uid, ""],
          [filtered.uid, "dev.lading.registry."],
        ],
      );
      assert.equal(list.totalCount, "2");
      ok(await owner().call("DELETE", `/events/v2/subscriptions/${filtered.uid}`));
      const gone = await owner().call("GET", `/events/v2/subscriptions/${filtered.uid}`);
      assert.equal(status(gone), 404);
      // Deletion is itself an event, recorded for the subscriptions left on the group.
      const events = await server.lading.store.db
        .selectFrom("events")
        .select(["type", "subject"])
        .where("subject", "=", filtered.uid)
        .orderBy("seq")
        .execute();
      assert.deepEqual(
        events.map((e) => e.type),
        ["dev.lading.events.subscription.created.v1", "dev.lading.events.subscription.deleted.v1"],
      );
    });

    it("serves the same over gRPC", async () => {
      const grpc = grpcCaller(server.apiUrl, server.org.token);
      const got = ok(await grpc(SubscriptionsService, "getSubscription", { uid: mine.uid }));
      assert.equal(got.sink, sink);
      const bad = await grpc(SubscriptionsService, "createSubscription", {
        parent: org,
        subscription: { sink: "http://hooks.example.com/" },
      });
      assert.equal(!bad.ok && bad.code, 3);
    });

    it("refuses sinks that are not https, carry credentials or are not URLs, naming sink", async () => {
      const bad = [
        "",
        "not a url",
        "/relative/path",
        "ftp://hooks.example.com/",
        "http://hooks.example.com/",
        "http://10.0.0.1/hook",
        "https://user:secret@hooks.example.com/",
        "https://hooks.example.com/#fragment",
        `https://hooks.example.com/${"a".repeat(2048)}`,
      ];
      for (const url of bad) {
        const r = await owner().call("POST", `/events/v2/subscriptions/${org}`, { sink: url });
        assert.equal(status(r), 400, url);
        assert.deepEqual(
          violations(r).map((v) => v.field),
          ["sink"],
          url,
        );
      }
      const prefix = await owner().call("POST", `/events/v2/subscriptions/${org}`, {
        sink,
        typePrefix: "Dev Lading",
      });
      assert.deepEqual(
        violations(prefix).map((v) => v.field),
        ["type_prefix"],
      );
      for (const url of ["http://127.0.0.1:9/hook", "http://localhost/hook", "http://[::1]:8/"]) {
        const r = await owner().call("POST", `/events/v2/subscriptions/${org}`, { sink: url });
        assert.equal(status(r), 200, `${url} with --events-allow-http-loopback`);
        ok(await owner().call("DELETE", `/events/v2/subscriptions/${(r as Loose).body.uid}`));
      }
    });

    it("refuses internal sinks in every spelling without --outbound-allow, naming sink", async () => {
      strict = await startTestServer(kind);
      const internal = [
        "http://127.0.0.1:9/hook",
        "https://127.0.0.1:5432/hook",
        "https://localhost/hook",
        "https://LOCALHOST./hook",
        "https://api.localhost/hook",
        "https://127.1/hook",
        "https://2130706433/hook",
        "https://0x7f000001/hook",
        "https://017700000001/hook",
        "https://0.0.0.0/hook",
        "https://[::ffff:127.0.0.1]/hook",
        "https://[::1]/hook",
        "https://[::]/hook",
        "https://10.0.0.1/hook",
        "https://172.16.5.4/hook",
        "https://192.168.1.1/hook",
        "https://100.64.0.1/hook",
        "https://169.254.169.254/latest/meta-data",
        "https://224.0.0.1/hook",
        "https://255.255.255.255/hook",
        "https://[fd00::1]/hook",
        "https://[fe80::1]/hook",
        "https://[ff02::1]/hook",
        "https://[64:ff9b::7f00:1]/hook",
        "https://[2002:7f00:1::]/hook",
      ];
      for (const url of internal) {
        const r = await restCall(
          strict.apiUrl,
          strict.org.token,
          "POST",
          `/events/v2/subscriptions/${strict.org.groupUid}`,
          { sink: url },
        );
        assert.equal(status(r), 400, url);
        assert.deepEqual(
          violations(r).map((v) => v.field),
          ["sink"],
          url,
        );
        assert.match(violations(r)[0].description, /internal address.*--outbound-allow/, url);
      }
    });

    it("accepts loopback sinks, https too, with the --events-allow-http-loopback alias", async () => {
      for (const url of [
        "https://127.0.0.1:9/hook",
        "https://[::ffff:127.0.0.1]:9/",
        "https://localhost/",
      ]) {
        const r = await owner().call("POST", `/events/v2/subscriptions/${org}`, { sink: url });
        assert.equal(status(r), 200, url);
        ok(await owner().call("DELETE", `/events/v2/subscriptions/${(r as Loose).body.uid}`));
      }
      // The alias allows loopback only: other internal ranges stay refused.
      const r = await owner().call("POST", `/events/v2/subscriptions/${org}`, {
        sink: "https://10.0.0.1/hook",
      });
      assert.deepEqual(
        violations(r).map((v) => v.field),
        ["sink"],
      );
    });

    it("answers 401 to every RPC without a token", async () => {
      const calls = everyCall(undefined, mine.uid, org);
      for (const [name, call] of Object.entries(calls))
        assert.equal(status(await call()), 401, name);
    });

    it("hides another organisation's subscriptions: NOT_FOUND, and an empty list", async () => {
      const other = await bootstrapOrganisation(server.lading.store.db, "rival");
      const token = await server.token(other.identityUid);
      const calls = everyCall(token, mine.uid, org);
      const list = ok(await calls.list());
      assert.deepEqual(list.subscriptions ?? [], []);
      for (const name of ["get", "create", "delete", "deliveries", "redeliver", "test"] as const)
        assert.equal(status(await calls[name]()), 404, name);
      assert.equal(status(await owner().call("GET", `/events/v2/subscriptions/${mine.uid}`)), 200);
    });

    it("lets a viewer read but not create, delete, redeliver or test", async () => {
      const viewer = await holder(server, org, ["subscriptions.list", "groups.list"]);
      const calls = everyCall(viewer.token, mine.uid, org);
      assert.equal(status(await calls.list()), 200);
      assert.equal(status(await calls.get()), 200);
      assert.equal(status(await calls.deliveries()), 200);
      for (const name of ["create", "delete", "redeliver", "test"] as const)
        assert.equal(status(await calls[name]()), 403, name);
    });

    it("shows nothing to an identity without subscriptions.list", async () => {
      const stranger = await holder(server, org, ["repo.list", "groups.list"]);
      const calls = everyCall(stranger.token, mine.uid, org);
      assert.deepEqual(ok(await calls.list()).subscriptions ?? [], []);
      for (const name of ["get", "delete", "deliveries", "redeliver", "test"] as const)
        assert.equal(status(await calls[name]()), 404, name);
      assert.equal(status(await calls.create()), 403);
    });
  });
}
