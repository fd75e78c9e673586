import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { bigDpkgImage, bigSpdxReferrer } from "../support/big-scan-inputs.ts";
import { gzipTarBomb } from "../support/gzip-bombs.ts";
import type { BuiltImage } from "../support/oci-layout.ts";
import { registryPairs } from "../support/registry-server.ts";
import { scanHarness } from "../support/scan-harness.ts";
import { imageOf, waitFor } from "../support/scan-images.ts";

// Issue 21.5 and 21.7: a scan past its package or decompression bound fails with a reason the
// API shows, and the server goes on.
for (const pair of registryPairs) {
  describe(`scan bounds [${pair.store}, ${pair.blobs}]`, () => {
    const h = scanHarness(pair, { scanMaxPackages: "1000" });

    const push = async (name: string, image: BuiltImage) => {
      await h.pushReferrer(name, image);
      return image.descriptor.digest;
    };
    /** The image's platform as `GET /registry/v2/images:packages` shows it once failed. */
    const failedInApi = async (name: string, digest: string) => {
      const repo = await h.r.server.lading.store.db
        .selectFrom("repos")
        .select("uid")
        .where("name", "=", name.slice(name.indexOf("/") + 1))
        .executeTakeFirstOrThrow();
      const url = `${h.r.server.apiUrl}/registry/v2/images:packages?repo=${encodeURIComponent(repo.uid)}&digest=${digest}`;
      return waitFor(`${digest} failed in the API`, async () => {
        const res = await fetch(url, {
          headers: { authorization: `Bearer ${h.r.server.org.token}` },
        });
        assert.equal(res.status, 200);
        const body = (await res.json()) as {
          architectures: { image: { scanState: string; reason: string } }[];
        };
        const image = body.architectures[0]?.image;
        return image?.scanState === "failed" ? image : undefined;
      });
    };

    it("an image whose package databases list more packages than allowed fails with the bound", async () => {
      const digest = await push("acme/many", await bigDpkgImage(1500, "many"));
      const row = await h.settled(digest, "failed");
      const reason =
        "the image's package databases list 1500 packages, more than the 1000 a scan may hold (--scan-max-packages)";
      assert.equal(row.reason, reason);
      assert.equal((await failedInApi("acme/many", digest)).reason, reason);
      assert.deepEqual(await h.packagesOf(digest), []);
    });

    it("a pushed SBOM listing more packages than allowed fails the scan with the bound", async () => {
      const { image, referrer } = await bigSpdxReferrer(1500, "many-sbom");
      const digest = await push("acme/many-sbom", image);
      await h.settled(digest, "done");
      await push("acme/many-sbom", referrer);
      const row = await h.settled(digest, "failed");
      assert.equal(
        row.reason,
        "the SBOM lists 1500 packages, more than the 1000 a scan may hold (--scan-max-packages)",
      );
    });

    it("a layer that is a gzip bomb fails the scan after its decompression budget", async () => {
      const bomb = gzipTarBomb(2048, { "etc/os-release": "ID=debian\n" }, "zeros");
      const digest = await push("acme/bomb", await imageOf([bomb]));
      const row = await h.settled(digest, "failed", undefined, 120_000);
      assert.match(
        row.reason,
        /^layer 1: unpacks to more than 1073741824 bytes from \d+ compressed/,
      );
    });
  });
}
