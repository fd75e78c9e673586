import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { createTestStore, openTestStore, storeKinds } from "../../test/support/stores.ts";
import { createMetadataStore } from "../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";
import { createPullRecorder, type Pull, pullBufferLimit, pullFlushSize } from "./pull-recorder.ts";
import { workerPullWriter } from "./pull-writer.ts";

for (const kind of storeKinds) {
  describe(`pull recorder [${kind}]`, () => {
    let opened: Awaited<ReturnType<typeof openTestStore>>;
    before(async () => {
      opened = await openTestStore(kind);
    });
    after(() => opened.close());

    const org = newRootUid();
    const repo = { uid: newChildUid(org), parent_uid: org, root_uid: org };
    const pull = (i: number): Pull => ({
      repo,
      repository: "acme/app",
      tag: i % 2 === 0 ? "latest" : "",
      digest: `sha256:${String(i).padStart(64, "0")}`,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      method: "GET",
      client: { actor: { subject: "" }, remoteAddress: "127.0.0.1", userAgent: "test" },
    });
    const count = async () =>
      Number(
        (
          await opened.store.db
            .selectFrom("events")
            .select((eb) => eb.fn.countAll<string | number>().as("n"))
            .where("type", "=", "dev.lading.registry.pull.v1")
            .executeTakeFirstOrThrow()
        ).n,
      );

    it("writes nothing on the request path, then every pull once after the flush", async () => {
      const recorder = createPullRecorder({
        db: opened.store.db,
        registryUrl: () => "http://registry.example",
        log: pino({ level: "silent" }),
      });
      for (let i = 0; i < 7; i++) recorder.record(pull(i));
      assert.equal(await count(), 0, "buffered, not written");
      await recorder.flush();
      assert.equal(await count(), 7);
      const rows = await opened.store.db
        .selectFrom("events")
        .select(["subject", "group_uid", "source", "data", "extensions"])
        .where("type", "=", "dev.lading.registry.pull.v1")
        .orderBy("seq")
        .execute();
      assert.deepEqual(
        rows.map((r) => [r.subject, r.group_uid, r.source]),
        Array.from({ length: 7 }, () => [repo.uid, org, "http://registry.example"]),
      );
      const body = JSON.parse(rows[1].data).body;
      assert.equal(body.tag, undefined, "a pull by digest has no tag");
      assert.equal(body.digest, pull(1).digest);
      assert.equal(JSON.parse(rows[0].data).body.tag, "latest");
      assert.deepEqual(JSON.parse(rows[0].extensions), {
        digest: pull(0).digest,
        mediatype: "application/vnd.oci.image.manifest.v1+json",
      });
      await recorder.close();
    });

    it("writes a full batch without waiting for the timer, and the rest on close", async () => {
      const start = await count();
      const recorder = createPullRecorder({
        db: opened.store.db,
        registryUrl: () => "http://registry.example",
        log: pino({ level: "silent" }),
      });
      for (let i = 0; i < pullFlushSize - 1; i++) recorder.record(pull(i));
      assert.equal(recorder.pending(), pullFlushSize - 1);
      recorder.record(pull(0));
      assert.equal(recorder.pending(), 0, "the full batch is on its way");
      for (let i = 0; i < 3; i++) recorder.record(pull(i));
      assert.equal(recorder.pending(), 3);
      await recorder.close();
      assert.equal(await count(), start + pullFlushSize + 3);
    });
  });
}

for (const kind of storeKinds) {
  describe(`pull recorder [${kind}, the writer thread]`, () => {
    const org = newRootUid();
    const repo = { uid: newChildUid(org), parent_uid: org, root_uid: org };
    const pull = (i: number): Pull => ({
      repo,
      repository: "acme/app",
      tag: "",
      digest: `sha256:${String(i).padStart(64, "0")}`,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      method: "HEAD",
      client: {
        actor: { subject: "someone", act: { sub: "ci" } },
        remoteAddress: "::1",
        userAgent: "test",
      },
    });

    it("writes through its own connection, every pull once and in order, then stops", async () => {
      const location = await createTestStore(kind);
      const store = createMetadataStore(location.options);
      await store.migrate();
      try {
        const recorder = createPullRecorder({
          db: store.db,
          registryUrl: () => "http://registry.example",
          log: pino({ level: "silent" }),
          writer: workerPullWriter(location.options),
        });
        const total = pullFlushSize * 2 + 7;
        for (let i = 0; i < total; i++) recorder.record(pull(i));
        await recorder.flush();
        // The main connection sees what the writer thread committed.
        const rows = await store.db
          .selectFrom("events")
          .select(["data", "extensions"])
          .where("type", "=", "dev.lading.registry.pull.v1")
          .orderBy("seq")
          .execute();
        assert.equal(rows.length, total);
        assert.deepEqual(
          rows.map((r) => JSON.parse(r.extensions).digest),
          Array.from({ length: total }, (_, i) => pull(i).digest),
        );
        const data = JSON.parse(rows[0].data);
        assert.deepEqual(data.actor, { subject: "someone", act: { sub: "ci" } });
        assert.equal(data.body.method, "HEAD");
        // A write of the server's own while the thread is idle, and after it stopped.
        await store.db.insertInto("settings").values({ key: "after", value: "v" }).execute();
        await recorder.close();
        recorder.record(pull(0));
        await recorder.close();
        assert.equal(
          (await store.db.selectFrom("events").select("id").execute()).length,
          total + 1,
          "a writer closed and used again starts a new thread",
        );
      } finally {
        await store.close();
        await location.drop();
      }
    });
  });
}

describe("pull recorder, a store that stalls", () => {
  it("holds at most pullBufferLimit events, written or waiting, and counts the rest", async () => {
    const org = newRootUid();
    const repo = { uid: newChildUid(org), parent_uid: org, root_uid: org };
    let release = () => {};
    const stalled = new Promise<void>((resolve) => {
      release = resolve;
    });
    const batches: number[] = [];
    const recorder = createPullRecorder({
      db: undefined as never,
      registryUrl: () => "http://registry.example",
      log: pino({ level: "silent" }),
      writer: {
        async write(_source, pulls) {
          batches.push(pulls.length);
          await stalled;
        },
        close: async () => {},
      },
    });
    const pull: Pull = {
      repo,
      repository: "acme/app",
      tag: "latest",
      digest: `sha256:${"0".repeat(64)}`,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      method: "GET",
      client: { actor: { subject: "" }, remoteAddress: "127.0.0.1", userAgent: "test" },
    };
    for (let i = 0; i < pullBufferLimit + 25; i++) recorder.record(pull);
    assert.equal(recorder.dropped(), 25);
    release();
    await recorder.close();
    assert.equal(
      batches.reduce((a, b) => a + b, 0),
      pullBufferLimit,
    );
    recorder.record(pull);
    assert.equal(recorder.dropped(), 25, "room again once the batches are written");
    await recorder.close();
  });
});
