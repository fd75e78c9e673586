import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type OciClient, ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const errorOf = async (res: Response) =>
  ((await res.json()) as { errors: { code: string; message: string }[] }).errors[0];

for (const pair of registryPairs) {
  describe(`manifest push checks [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let c: OciClient;
    let text: string;
    before(async () => {
      r = await startRegistryServer(pair);
      c = ociClient(r.registryUrl, r.ownerToken);
      const image = buildImage("strict manifests");
      await c.pushImage("acme/strict", "v1", image);
      text = image.manifest.toString();
      assert.match(text, /^\{"schemaVersion":2,"mediaType":"[^"]+",/);
    });
    after(() => r?.close());

    const refusedWith = async (body: Buffer, pattern: RegExp) => {
      const res = await c.putManifest("acme/strict", "refused", body);
      assert.equal(res.status, 400, body.toString().slice(0, 80));
      const error = await errorOf(res);
      assert.equal(error.code, "MANIFEST_INVALID");
      assert.match(error.message, pattern);
    };

    it("refuses a schemaVersion other than the number 2", async () => {
      for (const version of ["3", "2e308", "2.0", "20e-1", '"2"', "null", "[2]"]) {
        const body = text.replace('"schemaVersion":2', `"schemaVersion":${version}`);
        await refusedWith(Buffer.from(body), /schemaVersion/);
      }
      await refusedWith(Buffer.from(text.replace('"schemaVersion":2,', "")), /schemaVersion/);
    });

    it("refuses invalid UTF-8", async () => {
      const at = text.indexOf('"mediaType":"');
      const body = Buffer.concat([
        Buffer.from(`${text.slice(0, at)}"annotations":{"a":"`),
        Buffer.from([0xc3, 0x28]),
        Buffer.from(`"},${text.slice(at)}`),
      ]);
      assert.equal(JSON.parse(body.toString()).annotations.a, "\ufffd(");
      await refusedWith(body, /UTF-8/);
    });

    it("refuses duplicate keys at any depth", async () => {
      const top = text.replace(
        '"mediaType":"application/vnd.oci.image.manifest.v1+json"',
        '"mediaType":"application/vnd.oci.image.manifest.v1+json","mediaType":"application/vnd.oci.image.index.v1+json"',
      );
      await refusedWith(Buffer.from(top), /duplicate key "mediaType"/);
      const nested = text.replace(/"size":(\d+)\}\]/, '"size":$1,"size":1}]');
      await refusedWith(Buffer.from(nested), /duplicate key "size"/);
      const folded = text.replace('"layers":', '"Layers":[],"layers":');
      await refusedWith(Buffer.from(folded), /case/);
    });

    it("refuses nesting deeper than 64 without exhausting the stack", async () => {
      const depth = 1_000_000;
      const body = text.replace(
        '"schemaVersion":2,',
        `"schemaVersion":2,"x":${"[".repeat(depth)}${"]".repeat(depth)},`,
      );
      await refusedWith(Buffer.from(body), /deeper than 64/);
    });

    it("accepts the manifest as built", async () => {
      assert.equal((await c.putManifest("acme/strict", "v2", Buffer.from(text))).status, 201);
      const tags = await c.fetch("/v2/acme/strict/tags/list");
      assert.deepEqual(((await tags.json()) as { tags: string[] }).tags, ["v1", "v2"]);
    });
  });
}
