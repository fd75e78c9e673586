import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { openTestStore, storeKinds } from "../../../test/support/stores.ts";
import { identityExtras } from "../../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../../uidp/index.ts";
import { type AccessFacts, type AccessQuery, readAccessFacts } from "./access-facts.ts";
import { cachingFactsReader } from "./caching-facts-reader.ts";

const time = "2026-01-01T00:00:00.000Z";
const digest = (n: number) => `sha256:${String(n).repeat(64).slice(0, 64)}`;
const stamps = { create_time: time, update_time: time };

// PostgreSQL reads these facts in one UNION ALL, SQLite in separate lookups: both must agree
// with each other and with what the separate reads always answered.
for (const kind of storeKinds) {
  describe(`access facts [${kind}]`, () => {
    let opened: Awaited<ReturnType<typeof openTestStore>>;
    const acme = newRootUid();
    const other = newRootUid();
    const team = newChildUid(acme);
    const repoUid = newChildUid(team);
    const alice = newRootUid();
    const role = newChildUid(acme);
    const repo = {
      uid: repoUid,
      parent_uid: team,
      root_uid: acme,
      name: "tools/app",
      description: "an app",
      readme: "# app",
      ...stamps,
    };
    const read = (query: Partial<AccessQuery>) =>
      readAccessFacts(opened.store.db, { identity: "", bindings: "", path: "", ...query });
    const sized = (facts: AccessFacts) =>
      facts.manifest
        ? { ...facts, manifest: { ...facts.manifest, size: Number(facts.manifest.size) } }
        : facts;

    before(async () => {
      opened = await openTestStore(kind);
      const { db } = opened.store;
      await db
        .insertInto("groups")
        .values([
          { uid: acme, parent_uid: "", name: "acme", description: "", ...stamps },
          { uid: other, parent_uid: "", name: "other", description: "", ...stamps },
          { uid: team, parent_uid: acme, name: "team", description: "", ...stamps },
        ])
        .execute();
      await db
        .insertInto("repos")
        .values([
          repo,
          // The same repo name in another organisation is another repo.
          { ...repo, uid: newChildUid(other), parent_uid: other, root_uid: other },
        ])
        .execute();
      await db
        .insertInto("identities")
        .values({
          uid: alice,
          parent_uid: "",
          name: "alice",
          description: "",
          issuer: "https://idp.example.com",
          subject: alice,
          ...identityExtras,
          expire_time: "2030-01-01T00:00:00.000Z",
          last_seen_time: null,
          ...stamps,
        })
        .execute();
      await db
        .insertInto("roles")
        .values({
          uid: role,
          parent_uid: acme,
          name: "puller",
          description: "",
          capabilities: '["repo.blobs.get"]',
          ...stamps,
        })
        .execute();
      const binding = { identity_uid: alice, mapping_uid: "", ...stamps };
      await db
        .insertInto("role_bindings")
        .values([
          { ...binding, uid: newChildUid(team), parent_uid: team, role_uid: role },
          // A binding whose role is gone grants nothing: its capabilities read as null.
          { ...binding, uid: newChildUid(acme), parent_uid: acme, role_uid: newChildUid(acme) },
        ])
        .execute();
      const manifest = {
        repo_uid: repoUid,
        media_type: "application/vnd.oci.image.manifest.v1+json",
        artifact_type: "",
        subject_digest: null,
        create_time: time,
        last_time: time,
      };
      await db
        .insertInto("manifests")
        .values([
          { ...manifest, digest: digest(1), size: 1234 },
          { ...manifest, digest: digest(2), size: 99 },
        ])
        .execute();
      await db
        .insertInto("tags")
        .values({
          uid: `${repoUid}/0000000000000001`,
          parent_uid: repoUid,
          name: "latest",
          digest: digest(1),
          deprecated: 0,
          history_seq: 1,
          ...stamps,
        })
        .execute();
    });
    after(() => opened.close());

    it("reads the identity, its bindings, the repo and the manifest a tag names", async () => {
      const facts = await read({
        identity: alice,
        bindings: alice,
        path: "acme/tools/app",
        manifest: { reference: "latest", byDigest: false },
      });
      assert.deepEqual(facts.identity, {
        uid: alice,
        parent_uid: "",
        expire_time: "2030-01-01T00:00:00.000Z",
      });
      const byGroup = (a: { groupUid: string }, b: { groupUid: string }) =>
        a.groupUid < b.groupUid ? -1 : 1;
      assert.deepEqual(
        [...facts.bindings].sort(byGroup),
        [
          { groupUid: team, capabilities: '["repo.blobs.get"]' },
          { groupUid: acme, capabilities: null },
        ].sort(byGroup),
      );
      assert.deepEqual(facts.target, {
        path: "acme/tools/app",
        orgName: "acme",
        repoName: "tools/app",
        orgUid: acme,
        repo,
      });
      assert.deepEqual(sized(facts).manifest, {
        digest: digest(1),
        media_type: "application/vnd.oci.image.manifest.v1+json",
        size: 1234,
      });
    });

    // The facts a manifest GET by tag asks for, and a reader reusing them as the server does.
    const tagQuery = {
      identity: alice,
      bindings: alice,
      path: "acme/tools/app",
      manifest: { reference: "latest", byDigest: false },
    };
    const cachingReader = () =>
      cachingFactsReader(opened.store.db, () => opened.store.changeMark());
    const moveTag = (to: string) =>
      opened.store.db
        .updateTable("tags")
        .set({ digest: to })
        .where("parent_uid", "=", repoUid)
        .execute();

    it(`reuses facts while the store's change mark holds (${kind === "sqlite" ? "SQLite" : "never on PostgreSQL"}), and reads afresh after any change`, async () => {
      const cached = cachingReader();
      const first = await cached(tagQuery);
      const again = await cached(tagQuery);
      assert.deepEqual(sized(again), sized(first));
      if (kind === "sqlite") {
        assert.equal(again, first, "the same facts, not read again");
        assert.ok(Object.isFrozen(again.target.repo) && Object.isFrozen(again.bindings));
      } else {
        assert.notEqual(again, first, "PostgreSQL reads every time");
      }
      const other = await cached({
        ...tagQuery,
        manifest: { reference: digest(2), byDigest: true },
      });
      assert.equal(other.manifest?.digest, digest(2), "another query is another entry");

      await moveTag(digest(2));
      try {
        assert.equal((await cached(tagQuery)).manifest?.digest, digest(2));
      } finally {
        await moveTag(digest(1));
      }
      assert.equal((await cached(tagQuery)).manifest?.digest, digest(1));
      if (kind === "sqlite") {
        // Another connection (the pull event writer, a scan thread, `lading admin` in another
        // process) committing anything is seen too.
        const outside = new DatabaseSync(join(opened.options.dataDir, "lading.db"));
        try {
          outside.prepare("update roles set capabilities = '[]' where uid = ?").run(role);
          const narrowed = await cached(tagQuery);
          assert.ok(narrowed.bindings.every((b) => b.capabilities !== '["repo.blobs.get"]'));
        } finally {
          outside
            .prepare("update roles set capabilities = ? where uid = ?")
            .run('["repo.blobs.get"]', role);
          outside.close();
        }
        assert.ok((await cached(tagQuery)).bindings.some((b) => b.capabilities !== null));
      }
    });

    it("shares one read among requests that ask the same in one turn, and none begun before a change", async () => {
      const cached = cachingReader();
      const [a, b, c] = await Promise.all([cached(tagQuery), cached(tagQuery), cached(tagQuery)]);
      assert.equal(b, a);
      assert.equal(c, a);
      assert.ok(Object.isFrozen(a.target));
      // A read already under way when the tag moves is not shared with a request made after.
      const before = cached(tagQuery);
      await new Promise((resolve) => setImmediate(resolve));
      await moveTag(digest(2));
      try {
        const after = await cached(tagQuery);
        assert.equal(after.manifest?.digest, digest(2));
        assert.ok((await before).manifest);
      } finally {
        await moveTag(digest(1));
      }
    });

    it("finds a manifest by digest, and none for an unknown tag or digest", async () => {
      const path = "acme/tools/app";
      const byDigest = await read({ path, manifest: { reference: digest(2), byDigest: true } });
      assert.equal(byDigest.manifest?.digest, digest(2));
      assert.equal(Number(byDigest.manifest?.size), 99);
      const noTag = await read({ path, manifest: { reference: "nightly", byDigest: false } });
      assert.equal(noTag.manifest, undefined);
      assert.deepEqual(noTag.target.repo, repo);
      const noDigest = await read({ path, manifest: { reference: digest(3), byDigest: true } });
      assert.equal(noDigest.manifest, undefined);
      // A tag's name is not a digest, nor a digest a tag.
      const tagAsDigest = await read({ path, manifest: { reference: "latest", byDigest: true } });
      assert.equal(tagAsDigest.manifest, undefined);
    });

    it("reads nothing it was not asked for", async () => {
      const facts = await read({ path: "acme/tools/app" });
      assert.deepEqual(facts, {
        identity: undefined,
        bindings: [],
        target: {
          path: "acme/tools/app",
          orgName: "acme",
          repoName: "tools/app",
          orgUid: acme,
          repo,
        },
        manifest: undefined,
      });
      const gone = await read({ identity: newRootUid(), bindings: newRootUid(), path: "acme/x" });
      assert.equal(gone.identity, undefined);
      assert.deepEqual(gone.bindings, []);
    });

    it("answers a missing repo, a missing organisation and a path without a repo", async () => {
      const lookup = { reference: "latest", byDigest: false };
      const missingRepo = await read({ path: "acme/nope", manifest: lookup });
      assert.deepEqual(missingRepo.target, {
        path: "acme/nope",
        orgName: "acme",
        repoName: "nope",
        orgUid: acme,
        repo: undefined,
      });
      assert.equal(missingRepo.manifest, undefined);
      const missingOrg = await read({ path: "nobody/tools/app", manifest: lookup });
      assert.equal(missingOrg.target.orgUid, undefined);
      assert.equal(missingOrg.target.repo, undefined);
      assert.equal(missingOrg.manifest, undefined);
      const orgOnly = await read({ path: "acme" });
      assert.deepEqual(orgOnly.target, {
        path: "acme",
        orgName: "acme",
        repoName: "",
        orgUid: acme,
        repo: undefined,
      });
      // A subgroup is not an organisation.
      const subgroup = await read({ path: "team/tools/app" });
      assert.equal(subgroup.target.orgUid, undefined);
      const otherOrg = await read({ path: "other/tools/app", manifest: lookup });
      assert.equal(otherOrg.target.orgUid, other);
      assert.notEqual(otherOrg.target.repo?.uid, repoUid);
      assert.equal(otherOrg.manifest, undefined);
    });
  });
}
