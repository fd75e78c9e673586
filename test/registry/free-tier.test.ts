import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { claimsOf, ociClient, requestToken } from "../support/oci-client.ts";
import { type BuiltImage, buildImage } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

for (const pair of registryPairs) {
  describe(`free tier for signed-in callers of another organisation [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let stable: BuiltImage;
    let paid: BuiltImage;
    before(async () => {
      r = await startRegistryServer(pair, { freeTierTags: "stable,edge" });
      const owner = ociClient(r.registryUrl, r.publicOrg.token);
      stable = buildImage("free");
      paid = buildImage("paid");
      await owner.pushImage("public/lib", "stable", stable);
      await owner.pushImage("public/lib", "2.0", paid);
    });
    after(() => r?.close());

    const layerOf = (image: BuiltImage) => [...image.blobs.keys()][0];

    it("pulls the free tier with a Lading token of another organisation, and nothing more", async () => {
      const acme = ociClient(r.registryUrl, r.ownerToken);
      const manifest = await acme.fetch("/v2/public/lib/manifests/stable");
      assert.equal(manifest.status, 200);
      assert.deepEqual(Buffer.from(await manifest.arrayBuffer()), stable.manifest);
      assert.equal(
        (await acme.fetch(`/v2/public/lib/blobs/${layerOf(stable)}`, { method: "HEAD" })).status,
        200,
      );
      const tags = await acme.fetch("/v2/public/lib/tags/list");
      assert.deepEqual(((await tags.json()) as { tags: string[] }).tags, ["stable"]);
      assert.equal((await acme.fetch("/v2/public/lib/manifests/2.0")).status, 403);
      assert.equal((await acme.fetch(`/v2/public/lib/blobs/${layerOf(paid)}`)).status, 403);
      assert.equal((await acme.fetch("/v2/public/lib/_lading/history/2.0")).status, 403);
      const catalog = await acme.fetch("/v2/_catalog");
      assert.deepEqual(((await catalog.json()) as { repositories: string[] }).repositories, []);
    });

    it("grants at least what anonymous callers get at /token", async () => {
      const anonymous = await requestToken(r.registryUrl, ["repository:public/lib:pull"]);
      const signedIn = await requestToken(
        r.registryUrl,
        ["repository:public/lib:pull,push"],
        `Bearer ${r.ownerToken}`,
      );
      assert.equal(signedIn.status, 200);
      const claims = claimsOf(String(signedIn.body.token));
      assert.deepEqual(claims.access, claimsOf(String(anonymous.body.token)).access);
      assert.deepEqual(claims.access, [
        { type: "repository", name: "public/lib", actions: ["pull"] },
      ]);
      assert.equal(claims.sub, r.server.org.identityUid);
      const client = ociClient(r.registryUrl, String(signedIn.body.token));
      assert.equal((await client.fetch("/v2/public/lib/manifests/stable")).status, 200);
      assert.equal((await client.fetch("/v2/public/lib/_lading/history/stable")).status, 200);
      assert.equal((await client.fetch("/v2/public/lib/manifests/2.0")).status, 403);
      assert.equal((await client.fetch(`/v2/public/lib/blobs/${layerOf(paid)}`)).status, 403);
    });

    it("mounts from the public organisation only what the free tier reaches", async () => {
      const acme = ociClient(r.registryUrl, r.ownerToken);
      const mount = (digest: string) =>
        acme.fetch(`/v2/acme/copy/blobs/uploads/?mount=${digest}&from=public/lib`, {
          method: "POST",
        });
      assert.equal((await mount(layerOf(stable))).status, 201);
      assert.equal((await mount(layerOf(paid))).status, 202);
    });

    it("keeps the public organisation's own callers unlimited", async () => {
      const owner = ociClient(r.registryUrl, r.publicOrg.token);
      assert.equal((await owner.fetch("/v2/public/lib/manifests/2.0")).status, 200);
      const { body } = await requestToken(
        r.registryUrl,
        ["repository:public/lib:pull"],
        `Bearer ${r.publicOrg.token}`,
      );
      assert.equal(claimsOf(String(body.token)).free_tier, undefined);
      const scoped = ociClient(r.registryUrl, String(body.token));
      assert.equal((await scoped.fetch("/v2/public/lib/manifests/2.0")).status, 200);
    });
  });
}
