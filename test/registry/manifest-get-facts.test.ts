import assert from "node:assert/strict";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { after, before, describe, it } from "node:test";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const registryPull = "5cb68e21494f5f35bdeffa1a24542addcf36ecea";
const accept = { accept: "application/vnd.oci.image.manifest.v1+json" };

// A manifest GET reads the caller's identity, bindings, the repo and the manifest in one
// statement on PostgreSQL (issue 24 item 4); SQLite reuses what it read only while nothing in
// the database has changed since (caching-facts-reader.ts): every change shows on the next request.
for (const pair of registryPairs) {
  describe(`manifest GET reads its facts afresh [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${r.server.apiUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${r.server.org.token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, string> };
    };
    before(async () => {
      r = await startRegistryServer(pair);
    });
    after(() => r?.close());

    it("follows a tag moved or deleted, at once", async () => {
      const owner = ociClient(r.registryUrl, r.ownerToken);
      const first = await owner.pushImage("acme/moving", "v1", buildImage("first"));
      const get = () => owner.fetch("/v2/acme/moving/manifests/v1", { headers: accept });
      assert.equal((await get()).headers.get("docker-content-digest"), first);
      const second = await owner.pushImage("acme/moving", "v1", buildImage("second"));
      assert.notEqual(second, first);
      assert.equal((await get()).headers.get("docker-content-digest"), second);
      const head = await owner.fetch(`/v2/acme/moving/manifests/${first}`, { method: "HEAD" });
      assert.equal(head.status, 200, "the first manifest is still there by digest");
      const deleted = await owner.fetch("/v2/acme/moving/manifests/v1", { method: "DELETE" });
      assert.equal(deleted.status, 202);
      assert.equal((await get()).status, 404);
    });

    it("denies at once when a binding goes, allows again when it comes back, and refuses an expired identity", async () => {
      const owner = ociClient(r.registryUrl, r.ownerToken);
      await owner.pushImage("acme/app", "v1", buildImage("app"));
      const created = await api("POST", `/iam/v2/identities/${r.server.org.groupUid}`, {
        name: "puller",
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const uid = created.body.uid;
      const bind = () =>
        api("POST", `/iam/v2/roleBindings/${r.server.org.groupUid}`, {
          identityUid: uid,
          roleUid: registryPull,
        });
      const binding = await bind();
      assert.equal(binding.status, 200, JSON.stringify(binding.body));
      const direct = ociClient(r.registryUrl, await r.server.token(uid, { audience: r.host }));
      const get = () => direct.fetch("/v2/acme/app/manifests/v1", { headers: accept });
      assert.equal((await get()).status, 200);

      assert.equal((await api("DELETE", `/iam/v2/roleBindings/${binding.body.uid}`)).status, 200);
      const denied = await get();
      assert.equal(denied.status, 403);
      const body = (await denied.json()) as { errors: { code: string }[] };
      assert.equal(body.errors[0].code, "DENIED");
      // Pushing is refused as well: the same facts decide every registry request.
      const push = await direct.fetch("/v2/acme/app/blobs/uploads/", { method: "POST" });
      assert.equal(push.status, 403);

      assert.equal((await bind()).status, 200);
      assert.equal((await get()).status, 200);
      assert.equal((await get()).status, 200);

      if (pair.store === "sqlite") {
        // A change committed outside the server's connection (`lading admin` in another
        // process, or another thread) shows at once too.
        const outside = new DatabaseSync(join(r.server.store.options.dataDir, "lading.db"));
        const deleted = outside
          .prepare("delete from role_bindings where identity_uid = ?")
          .run(uid).changes;
        outside.close();
        assert.equal(deleted, 1);
        assert.equal((await get()).status, 403);
        assert.equal((await bind()).status, 200);
        assert.equal((await get()).status, 200);
      }

      await r.server.lading.store.db
        .updateTable("identities")
        .set({ expire_time: new Date(Date.now() - 1000).toISOString() })
        .where("uid", "=", uid)
        .execute();
      const expired = await get();
      assert.equal(expired.status, 401);
      assert.match(expired.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
    });
  });
}
