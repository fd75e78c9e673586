import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { claimsOf, ociClient, requestToken } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

type History = { history: { updateTimestamp: string; digest: string }[] };
const digest = (n: number) => `sha256:${n.toString(16).padStart(64, "0")}`;

for (const pair of registryPairs) {
  describe(`tag history endpoint [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let repoUid: string;
    before(async () => {
      r = await startRegistryServer(pair);
      await ociClient(r.registryUrl, r.ownerToken).pushImage("acme/app", "seed", buildImage("s"));
      const repo = await r.server.lading.store.db
        .selectFrom("repos")
        .select("uid")
        .where("name", "=", "app")
        .executeTakeFirstOrThrow();
      repoUid = repo.uid;
      const base = Date.parse("2026-01-01T00:00:00.000Z");
      const rows = Array.from({ length: 1500 }, (_, i) => ({
        repo_uid: repoUid,
        tag: "nightly",
        seq: String(i + 1),
        digest: digest(i + 1),
        update_time: new Date(base + i * 60_000).toISOString(),
      }));
      for (let i = 0; i < rows.length; i += 250) {
        await r.server.lading.store.db
          .insertInto("tag_history")
          .values(rows.slice(i, i + 250))
          .execute();
      }
    });
    after(() => r?.close());

    const get = (path: string, token = r.ownerToken) =>
      ociClient(r.registryUrl, token).fetch(`/v2/acme/app/_lading/history/${path}`);

    it("answers oldest first, at most 1000 records, windowed by inclusive start and end", async () => {
      const all = (await (await get("nightly")).json()) as History;
      assert.equal(all.history.length, 1000);
      assert.equal(all.history[0].digest, digest(1));
      assert.equal(all.history[0].updateTimestamp, "2026-01-01T00:00:00.000Z");
      assert.equal(all.history[999].digest, digest(1000));
      const window = (await (
        await get("nightly?start=2026-01-01T00:10:00Z&end=2026-01-01T00:20:00.000Z")
      ).json()) as History;
      assert.deepEqual(
        window.history.map((h) => h.digest),
        Array.from({ length: 11 }, (_, i) => digest(i + 11)),
      );
      const tail = (await (
        await get("nightly?start=2026-01-01T23:00:00%2B00:00")
      ).json()) as History;
      assert.equal(tail.history[0].digest, digest(1381));
      assert.equal(tail.history.at(-1)?.digest, digest(1500));
      const end = (await (await get("nightly?end=2026-01-01T00:01:00Z")).json()) as History;
      assert.equal(end.history.length, 2);
    });

    it("answers a malformed timestamp with 400 naming the parameter", async () => {
      for (const [query, name] of [
        ["start=yesterday", "start"],
        ["end=2026-13-45T99:00:00Z", "end"],
      ]) {
        const res = await get(`nightly?${query}`);
        assert.equal(res.status, 400);
        const body = (await res.json()) as {
          errors: { message: string; detail: { parameter: string } }[];
        };
        assert.equal(body.errors[0].detail.parameter, name);
        assert.match(body.errors[0].message, new RegExp(`^${name} must be an ISO 8601 timestamp`));
      }
      const reversed = await get("nightly?start=2026-02-01T00:00:00Z&end=2026-01-01T00:00:00Z");
      assert.equal(reversed.status, 400);
    });

    it("answers 404 for a tag that never existed and keeps a deleted tag's history", async () => {
      const unknown = await get("never");
      assert.equal(unknown.status, 404);
      assert.equal(
        ((await unknown.json()) as { errors: { code: string }[] }).errors[0].code,
        "MANIFEST_UNKNOWN",
      );
      const client = ociClient(r.registryUrl, r.ownerToken);
      await client.pushImage("acme/app", "doomed", buildImage("doomed"));
      assert.equal(
        (await client.fetch("/v2/acme/app/manifests/doomed", { method: "DELETE" })).status,
        202,
      );
      const kept = await get("doomed");
      assert.equal(kept.status, 200);
      assert.equal(((await kept.json()) as History).history.length, 1);
      const missingRepo = await ociClient(r.registryUrl, r.ownerToken).fetch(
        "/v2/acme/nothing/_lading/history/latest",
      );
      assert.equal(missingRepo.status, 404);
    });

    it("needs a token whose scope covers the image; another audience gets 403", async () => {
      const { body } = await requestToken(
        r.registryUrl,
        ["repository:acme/other:pull"],
        `Bearer ${r.ownerToken}`,
      );
      assert.deepEqual(claimsOf(String(body.token)).access, [
        { type: "repository", name: "acme/other", actions: ["pull"] },
      ]);
      assert.equal((await get("nightly", String(body.token))).status, 401);
      const scoped = await requestToken(
        r.registryUrl,
        ["repository:acme/app:pull"],
        `Bearer ${r.ownerToken}`,
      );
      assert.equal((await get("nightly", String(scoped.body.token))).status, 200);
      const api = await r.server.token(r.server.org.identityUid);
      assert.equal((await get("nightly", api)).status, 403);
      assert.equal(
        (await fetch(`${r.registryUrl}/v2/acme/app/_lading/history/nightly`)).status,
        401,
      );
    });

    it("records every one of many concurrent pushes moving one tag, in commit order", async () => {
      const client = ociClient(r.registryUrl, r.ownerToken);
      const images = Array.from({ length: 12 }, (_, i) => buildImage(`build ${i}`));
      for (const image of images) {
        for (const blob of image.blobs.values()) await client.pushBlob("acme/app", blob);
      }
      const responses = await Promise.all(
        images.map((image) => client.putManifest("acme/app", "moving", image.manifest)),
      );
      assert.deepEqual(
        responses.map((res) => res.status),
        images.map(() => 201),
      );
      const { history } = (await (await get("moving")).json()) as History;
      assert.equal(history.length, images.length);
      assert.deepEqual(
        history.map((h) => h.digest).sort(),
        images.map((i) => i.descriptor.digest).sort(),
      );
      const sorted = [...history].sort((a, b) =>
        a.updateTimestamp.localeCompare(b.updateTimestamp),
      );
      assert.deepEqual(history, sorted);
      const head = await client.fetch("/v2/acme/app/manifests/moving", { method: "HEAD" });
      assert.equal(head.headers.get("docker-content-digest"), history.at(-1)?.digest);
    });
  });
}
