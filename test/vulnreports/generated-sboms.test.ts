import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { describe, it } from "node:test";
import { promisify } from "node:util";
import { gzipSync } from "node:zlib";
import { buildIndex, sha256 } from "../support/oci-layout.ts";
import { registryPairs } from "../support/registry-server.ts";
import { scanHarness } from "../support/scan-harness.ts";
import { expectedPackages, imageOf, packageFiles, umociImage } from "../support/scan-images.ts";

const run = promisify(execFile);
const SPDX = "application/spdx+json";

for (const pair of registryPairs) {
  describe(`generated SBOMs [${pair.store}, ${pair.blobs}]`, () => {
    const h = scanHarness(pair);

    it("an image built with umoci and pushed with skopeo gets a generated SPDX referrer with exactly its packages", async () => {
      const { layout, digest } = await umociImage("v1", [
        [packageFiles.osRelease, packageFiles.apk],
        [packageFiles.dpkg, packageFiles.python, packageFiles.npm],
      ]);
      await run("skopeo", [
        "copy",
        `oci:${layout}:v1`,
        `docker://${h.r.host}/acme/umoci-app:v1`,
        "--dest-creds",
        `_token:${h.r.ownerToken}`,
        "--dest-tls-verify=false",
      ]);
      const row = await h.settled(digest, "done");
      assert.equal(row.sbom_source, "generated");
      assert.equal(row.os, "linux");
      assert.equal(row.architecture, "amd64");
      assert.equal(row.distro, "alpine 3.20.3");
      assert.equal(row.reason, "");
      const manifest = JSON.parse(
        await (await h.oci().fetch(`/v2/acme/umoci-app/manifests/${digest}`)).text(),
      );
      const size =
        manifest.config.size +
        manifest.layers.reduce((s: number, l: { size: number }) => s + l.size, 0);
      assert.equal(Number(row.size), size);

      // By default the referrers API lists only what clients pushed (--scan-sbom-referrers).
      assert.deepEqual(await h.referrers("acme/umoci-app", digest), []);
      // The SBOM is a real artifact: its manifest and SPDX layer are pulled like any other.
      const sbomManifest = JSON.parse(
        await (await h.oci().fetch(`/v2/acme/umoci-app/manifests/${row.sbom_digest}`)).text(),
      );
      assert.equal(sbomManifest.subject.digest, digest);
      assert.equal(sbomManifest.artifactType, SPDX);
      assert.match(sbomManifest.annotations?.["org.opencontainers.image.created"] ?? "", /^\d{4}-/);
      const layerRes = await h
        .oci()
        .fetch(`/v2/acme/umoci-app/blobs/${sbomManifest.layers[0].digest}`);
      assert.equal(layerRes.status, 200);
      const spdx = JSON.parse(await layerRes.text());
      assert.equal(spdx.spdxVersion, "SPDX-2.3");
      assert.match(spdx.creationInfo.creators[0], /^Tool: lading-\d+\.\d+\.\d+/);
      assert.deepEqual(
        spdx.packages
          .slice(1)
          .map(
            (p: {
              name: string;
              versionInfo: string;
              externalRefs: { referenceLocator: string }[];
            }) => [p.name, p.versionInfo, p.externalRefs[0].referenceLocator],
          ),
        expectedPackages.map((p) => [p.name, p.version, p.purl]),
      );

      assert.deepEqual(
        await h.packagesOf(digest),
        expectedPackages.map((p) => ({ ...p, sbom_digest: row.sbom_digest })),
      );
      assert.deepEqual(await h.sbomsOf(digest), [
        {
          sbom_digest: row.sbom_digest,
          source: "generated",
          format: "spdx-2.3",
          state: "parsed",
          reason: "",
          package_count: 5,
        },
      ]);
      assert.ok(h.matched.includes(digest));
      // The generated referrer is not itself queued.
      assert.equal(await h.scanOf(row.sbom_digest), undefined);
    });

    it("an index with two platforms gives each its own package set", async () => {
      const apk = (arch: string) => ({
        name: "lib/apk/db/installed",
        content: `P:musl\nV:1.2.5-r0\nA:${arch}\nL:MIT\n`,
      });
      const amd64 = await imageOf(
        [[packageFiles.osRelease, apk("x86_64"), { name: "marker", content: "4" }]],
        "amd64",
      );
      const arm64 = await imageOf(
        [[packageFiles.osRelease, apk("aarch64"), { name: "marker", content: "5" }]],
        "arm64",
      );
      for (const image of [amd64, arm64]) {
        for (const bytes of image.blobs.values()) await h.oci().pushBlob("acme/multi", bytes);
        const res = await h
          .oci()
          .putManifest("acme/multi", image.descriptor.digest, image.manifest);
        assert.equal(res.status, 201);
      }
      const index = buildIndex([amd64, arm64]);
      const res = await h
        .oci()
        .putManifest("acme/multi", "v1", index.bytes, "application/vnd.oci.image.index.v1+json");
      assert.equal(res.status, 201);
      for (const [image, arch, purl] of [
        [amd64, "amd64", "pkg:apk/alpine/musl@1.2.5-r0?arch=x86_64&distro=alpine-3.20.3"],
        [arm64, "arm64", "pkg:apk/alpine/musl@1.2.5-r0?arch=aarch64&distro=alpine-3.20.3"],
      ] as const) {
        const row = await h.settled(image.descriptor.digest, "done");
        assert.equal(row.architecture, arch);
        assert.deepEqual(
          (await h.packagesOf(image.descriptor.digest)).map((p) => p.purl),
          [purl],
        );
      }
      assert.equal(await h.scanOf(index.descriptor.digest), undefined);
    });

    it("a layer that is not a tar fails the scan with a reason, and the registry keeps serving", async () => {
      const image = await imageOf([
        gzipSync(Buffer.from("this is not a tar archive\n".repeat(40))),
      ]);
      const digest = await h.oci().pushImage("acme/broken", "v1", image);
      const row = await h.settled(digest, "failed");
      assert.match(row.reason, /^layer 1: /);
      assert.equal(row.attempts, 1);
      assert.deepEqual(await h.packagesOf(digest), []);
      assert.ok(!h.matched.includes(digest));
      assert.equal((await h.oci().fetch("/v2/")).status, 200);
      const next = await imageOf([[packageFiles.npm, { name: "marker", content: "7" }]]);
      const nextDigest = await h.oci().pushImage("acme/broken", "v2", next);
      assert.equal((await h.settled(nextDigest, "done")).sbom_source, "generated");
      assert.equal(sha256(next.manifest), nextDigest);
    });
  });
}
