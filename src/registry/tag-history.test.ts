import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { openTestStore, storeKinds } from "../../test/support/stores.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";
import { moveTag, readHistory } from "./tag-history.ts";

const digest = (n: number) => `sha256:${n.toString(16).padStart(64, "0")}`;

for (const kind of storeKinds) {
  describe(`tag history [${kind}]`, () => {
    it("records every concurrent move of one tag once, in commit order, with monotonic timestamps", async () => {
      const { store, close } = await openTestStore(kind);
      try {
        const repo = newChildUid(newRootUid());
        const moves = Array.from({ length: 40 }, (_, i) => digest(i + 1));
        const results = await Promise.all(moves.map((d) => moveTag(store.db, repo, "latest", d)));
        const history = await readHistory(store.db, repo, "latest");
        assert.equal(history.length, moves.length);
        assert.deepEqual([...history.map((h) => h.digest)].sort(), [...moves].sort());
        const rows = await store.db
          .selectFrom("tag_history")
          .select(["seq", "update_time", "digest"])
          .where("repo_uid", "=", repo)
          .orderBy("seq")
          .execute();
        assert.deepEqual(
          rows.map((r) => Number(r.seq)),
          moves.map((_, i) => i + 1),
        );
        for (let i = 1; i < rows.length; i++)
          assert.ok(rows[i].update_time >= rows[i - 1].update_time);
        const tag = await store.db
          .selectFrom("tags")
          .selectAll()
          .where("parent_uid", "=", repo)
          .executeTakeFirstOrThrow();
        assert.equal(tag.digest, rows.at(-1)?.digest);
        assert.equal(Number(tag.history_seq), moves.length);
        assert.equal(new Set(results.map((r) => r.uid)).size, 1);
      } finally {
        await close();
      }
    });

    it("continues the history of a tag deleted and created again", async () => {
      const { store, close } = await openTestStore(kind);
      try {
        const repo = newChildUid(newRootUid());
        await moveTag(store.db, repo, "v1", digest(1));
        await store.db.deleteFrom("tags").where("parent_uid", "=", repo).execute();
        await moveTag(store.db, repo, "v1", digest(2));
        const history = await readHistory(store.db, repo, "v1");
        assert.deepEqual(
          history.map((h) => h.digest),
          [digest(1), digest(2)],
        );
      } finally {
        await close();
      }
    });

    it("windows by inclusive start and end and returns at most 1000 records, oldest first", async () => {
      const { store, close } = await openTestStore(kind);
      try {
        const repo = newChildUid(newRootUid());
        const base = Date.parse("2026-01-01T00:00:00.000Z");
        const rows = Array.from({ length: 1200 }, (_, i) => ({
          repo_uid: repo,
          tag: "nightly",
          seq: String(i + 1),
          digest: digest(i + 1),
          update_time: new Date(base + i * 60_000).toISOString(),
        }));
        for (let i = 0; i < rows.length; i += 200) {
          await store.db
            .insertInto("tag_history")
            .values(rows.slice(i, i + 200))
            .execute();
        }
        const all = await readHistory(store.db, repo, "nightly");
        assert.equal(all.length, 1000);
        assert.equal(all[0].digest, digest(1));
        const start = rows[10].update_time;
        const end = rows[20].update_time;
        const window = await readHistory(store.db, repo, "nightly", { start, end });
        assert.deepEqual(
          window.map((h) => h.digest),
          rows.slice(10, 21).map((r) => r.digest),
        );
        const tail = await readHistory(store.db, repo, "nightly", {
          start: rows[1100].update_time,
        });
        assert.equal(tail.length, 100);
        assert.equal(tail.at(-1)?.digest, digest(1200));
      } finally {
        await close();
      }
    });
  });
}
