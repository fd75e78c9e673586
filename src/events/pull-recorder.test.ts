import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { pino } from "pino";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";
import { createPullRecorder, type Pull, pullFlushSize } from "./pull-recorder.ts";

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
