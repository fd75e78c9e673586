import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type OciClient, ociClient } from "../support/oci-client.ts";
import { buildImage, sha256 } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { waitFor } from "../support/scan-images.ts";

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
      const digest = await c.pushImage("acme/refs", "v1", image);
      // The tests count what the store holds: the push's scan (which writes the generated SBOM)
      // is over before they start.
      const { db } = r.server.lading.store;
      await waitFor("the scan of the pushed image", async () => {
        const scan = await db
          .selectFrom("image_scans")
          .select("state")
          .where("digest", "=", digest)
          .executeTakeFirst();
        return scan?.state === "done" ? scan : undefined;
      });
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

    it("refuses malformed upload-start parameters before writing anything", async () => {
      const { db } = r.server.lading.store;
      const tmp = join(r.server.store.options.dataDir, "blobs", "tmp");
      const written = async () => ({
        sessions: (await db.selectFrom("uploads").select("id").execute()).length,
        repos: (await db.selectFrom("repos").select("uid").where("name", "=", "fresh").execute())
          .length,
        // The S3 pair keeps nothing on disk for a session; its evidence is the session row.
        files: pair.blobs === "filesystem" ? (await readdir(tmp)).length : 0,
      });
      const before = await written();
      const blob = Buffer.from("checked first");
      const cases: [string, string][] = [
        ["mount=sha256:zzz&from=acme/refs", "DIGEST_INVALID"],
        ["mount=.INVALID&from=acme/refs", "DIGEST_INVALID"],
        ["mount=", "DIGEST_INVALID"],
        [`mount=${sha256(blob)}&from=acme/Bad_Name`, "NAME_INVALID"],
        [`mount=${sha256(blob)}&mount=${sha256("other")}&from=acme/refs`, "DIGEST_INVALID"],
        ["digest=sha256:zzz", "DIGEST_INVALID"],
        ["digest-algorithm=md5", "DIGEST_INVALID"],
      ];
      for (const [query, code] of cases) {
        const res = await c.fetch(`/v2/acme/fresh/blobs/uploads/?${query}`, {
          method: "POST",
          body: new Uint8Array(blob),
        });
        assert.equal(res.status, 400, query);
        assert.equal(await errorCode(res), code, query);
      }
      assert.deepEqual(await written(), before);
      const fallback = await c.fetch(
        `/v2/acme/fresh/blobs/uploads/?mount=${sha256("absent")}&from=acme/refs`,
        { method: "POST" },
      );
      assert.equal(fallback.status, 202);
    });
  });
}
