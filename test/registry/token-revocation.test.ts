import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { ociClient, requestToken } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const registryPull = "5cb68e21494f5f35bdeffa1a24542addcf36ecea";

for (const pair of registryPairs) {
  describe(`registry tokens of a deleted identity [${pair.store}, ${pair.blobs}]`, () => {
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
      await ociClient(r.registryUrl, r.ownerToken).pushImage("acme/app", "v1", buildImage("app"));
    });
    after(() => r?.close());

    it("keep the access claim when a binding goes, and stop at once when the identity goes", async () => {
      const created = await api("POST", `/iam/v2/identities/${r.server.org.groupUid}`, {
        name: "short-lived",
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const uid = created.body.uid;
      const binding = await api("POST", `/iam/v2/roleBindings/${r.server.org.groupUid}`, {
        identityUid: uid,
        roleUid: registryPull,
      });
      assert.equal(binding.status, 200, JSON.stringify(binding.body));
      const lading = await r.server.token(uid, { audience: r.host });
      const { body } = await requestToken(
        r.registryUrl,
        ["repository:acme/app:pull"],
        `Bearer ${lading}`,
      );
      const registry = ociClient(r.registryUrl, String(body.token));
      const direct = ociClient(r.registryUrl, lading);
      const path = "/v2/acme/app/manifests/v1";
      assert.equal((await registry.fetch(path)).status, 200);
      assert.equal((await direct.fetch(path)).status, 200);

      assert.equal((await api("DELETE", `/iam/v2/roleBindings/${binding.body.uid}`)).status, 200);
      assert.equal((await direct.fetch(path)).status, 403);
      assert.equal((await registry.fetch(path)).status, 200, "access is fixed for 300 s");

      assert.equal((await api("DELETE", `/iam/v2/identities/${uid}`)).status, 200);
      const revoked = await registry.fetch(path);
      assert.equal(revoked.status, 401);
      assert.match(revoked.headers.get("www-authenticate") ?? "", /error="invalid_token"/);
      assert.equal((await direct.fetch(path)).status, 401);
      assert.equal((await requestToken(r.registryUrl, [], `Bearer ${lading}`)).status, 401);
    });
  });
}
