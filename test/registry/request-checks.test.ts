import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type OciClient, ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const errorCode = async (res: Response) =>
  ((await res.json()) as { errors: { code: string }[] }).errors[0].code;

for (const pair of registryPairs) {
  describe(`registry request checks [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let c: OciClient;
    let image: ReturnType<typeof buildImage>;
    before(async () => {
      r = await startRegistryServer(pair);
      c = ociClient(r.registryUrl, r.ownerToken);
      image = buildImage("request checks");
      await c.pushImage("acme/refs", "v1", image);
    });
    after(() => r?.close());

    it("answers a reference that is neither tag nor digest like a missing manifest", async () => {
      const path = "/v2/acme/refs/manifests/.INVALID_MANIFEST_NAME";
      const get = await c.fetch(path);
      assert.equal(get.status, 404);
      assert.equal(await errorCode(get), "MANIFEST_UNKNOWN");
      assert.equal((await c.fetch(path, { method: "HEAD" })).status, 404);
      const del = await c.fetch(path, { method: "DELETE" });
      assert.equal(del.status, 404);
      assert.equal(await errorCode(del), "MANIFEST_UNKNOWN");
      const put = await c.putManifest("acme/refs", ".INVALID_MANIFEST_NAME", image.manifest);
      assert.equal(put.status, 400);
      assert.equal(await errorCode(put), "MANIFEST_INVALID");
      const digest = await c.fetch("/v2/acme/refs/manifests/sha256:zzz");
      assert.equal(digest.status, 400);
      assert.equal(await errorCode(digest), "DIGEST_INVALID");
    });
  });
}
