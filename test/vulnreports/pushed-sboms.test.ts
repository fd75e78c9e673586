import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_SBOM_BYTES } from "../../src/vulnreports/sbom/index.ts";
import { sha256 } from "../support/oci-layout.ts";
import { registryPairs } from "../support/registry-server.ts";
import { sbomFixture, wolfiPackages } from "../support/sbom-fixtures.ts";
import { scanHarness } from "../support/scan-harness.ts";
import { imageOf, packageFiles, referrerOf, waitFor } from "../support/scan-images.ts";

const SPDX = "application/spdx+json";
const CDX = "application/vnd.cyclonedx+json";

for (const pair of registryPairs) {
  describe(`pushed SBOMs [${pair.store}, ${pair.blobs}]`, () => {
    const h = scanHarness(pair);

    it("pushed SPDX and CycloneDX referrers win over the generated SBOM, the newest first; all are listed", async () => {
      const image = await imageOf([
        [packageFiles.osRelease, packageFiles.apk, { name: "marker", content: "1" }],
      ]);
      const digest = await h.oci().pushImage("acme/pushed", "v1", image);
      const generated = await h.settled(digest, "done");
      assert.equal(generated.sbom_source, "generated");

      const spdx = await h.pushReferrer(
        "acme/pushed",
        referrerOf(image.descriptor, SPDX, Buffer.from(sbomFixture("app-image.spdx.json")), SPDX),
      );
      const first = await h.settled(digest, "done", (row) => row.sbom_digest === spdx);
      assert.equal(first.sbom_source, "pushed");
      assert.equal(first.distro, "alpine 3.20.3");
      assert.deepEqual(
        (await h.packagesOf(digest)).map((p) => [p.name, p.version, p.ecosystem, p.license]),
        [
          ["busybox", "1.36.1-r29", "apk", "GPL-2.0-only"],
          ["golang.org/x/net", "v0.17.0", "golang", ""],
          ["log4j-core", "2.14.1", "maven", "Apache-2.0"],
          ["express", "4.19.2", "npm", "MIT"],
          ["Flask", "3.0.3", "pypi", "BSD-3-Clause"],
        ],
      );

      // CycloneDX names only the type in the layer, with a version parameter, as trivy does.
      const cdx = await h.pushReferrer(
        "acme/pushed",
        referrerOf(
          image.descriptor,
          `${CDX};version=1.6`,
          Buffer.from(sbomFixture("app-image.cdx-1.6.json")),
        ),
      );
      const second = await h.settled(digest, "done", (row) => row.sbom_digest === cdx);
      assert.equal(second.sbom_source, "pushed");
      assert.deepEqual(
        (await h.packagesOf(digest)).map((p) => p.purl),
        [
          "pkg:apk/alpine/musl@1.2.5-r0?arch=x86_64&distro=3.20.3",
          "pkg:golang/github.com/golang-jwt/jwt/v4@v4.5.0",
          "pkg:maven/com.fasterxml.jackson.core/jackson-databind@2.13.4.2",
          "pkg:npm/%40babel/traverse@7.23.0",
          "pkg:pypi/requests@2.32.3",
        ],
      );
      const sboms = await h.sbomsOf(digest);
      assert.deepEqual(
        sboms.map((s) => [s.sbom_digest, s.source, s.format, s.state, s.package_count]).sort(),
        [
          [generated.sbom_digest, "generated", "spdx-2.3", "parsed", 2],
          [spdx, "pushed", "spdx-2.3", "parsed", 5],
          [cdx, "pushed", "cyclonedx-1.6", "parsed", 5],
        ].sort(),
      );
      // The two pushed, not the generated one (--scan-sbom-referrers is off by default).
      assert.deepEqual(
        (await h.referrers("acme/pushed", digest)).map((m) => m.digest).sort(),
        [spdx, cdx].sort(),
      );
    });

    it("an in-toto attestation wrapping SPDX, pushed before its image, is used without generating one", async () => {
      const image = await imageOf([[packageFiles.apk, { name: "marker", content: "2" }]]);
      const attestation = referrerOf(
        image.descriptor,
        "application/vnd.in-toto+json",
        Buffer.from(sbomFixture("wolfi-image.intoto.json")),
      );
      const sbom = await h.pushReferrer("acme/attested", attestation);
      const digest = await h.oci().pushImage("acme/attested", "v1", image);
      const row = await h.settled(digest, "done");
      assert.equal(row.sbom_source, "pushed");
      assert.equal(row.sbom_digest, sbom);
      assert.equal(row.distro, "wolfi");
      assert.deepEqual(
        (await h.packagesOf(digest)).map((p) => [
          p.name,
          p.version,
          p.purl,
          p.ecosystem,
          p.license,
        ]),
        [...wolfiPackages]
          .sort((a, b) => (a.purl < b.purl ? -1 : a.purl > b.purl ? 1 : 0))
          .map((p) => [p.name, p.version, p.purl, p.ecosystem, p.licence]),
      );
      assert.deepEqual(
        (await h.sbomsOf(digest)).map((s) => [s.source, s.format, s.state]),
        [["pushed", "spdx-2.3", "parsed"]],
      );
    });

    it("a cosign attestation under its sha256-<hex>.att tag is read, its provenance layer skipped", async () => {
      const image = await imageOf([
        [packageFiles.osRelease, packageFiles.apk, { name: "marker", content: "3" }],
      ]);
      const digest = await h.oci().pushImage("acme/cosigned", "v1", image);
      assert.equal((await h.settled(digest, "done")).sbom_source, "generated");
      const statement = {
        _type: "https://in-toto.io/Statement/v0.1",
        predicateType: "https://slsa.dev/provenance/v0.2",
        subject: [{ name: "acme/cosigned", digest: { sha256: digest.slice(7) } }],
        predicate: {},
      };
      const provenance = Buffer.from(
        JSON.stringify({
          payloadType: "application/vnd.in-toto+json",
          payload: Buffer.from(JSON.stringify(statement)).toString("base64"),
          signatures: [{ keyid: "", sig: "MEUCIQ==" }],
        }),
      );
      const sbom = Buffer.from(sbomFixture("wolfi-image.dsse.json"));
      const config = Buffer.from(
        JSON.stringify({ architecture: "", os: "", rootfs: { type: "layers" } }),
      );
      const DSSE = "application/vnd.dsse.envelope.v1+json";
      const manifest = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: "application/vnd.oci.image.manifest.v1+json",
          config: {
            mediaType: "application/vnd.oci.image.config.v1+json",
            digest: sha256(config),
            size: config.length,
          },
          layers: [
            {
              mediaType: DSSE,
              digest: sha256(provenance),
              size: provenance.length,
              annotations: { predicateType: "https://slsa.dev/provenance/v0.2" },
            },
            {
              mediaType: DSSE,
              digest: sha256(sbom),
              size: sbom.length,
              annotations: { predicateType: "https://spdx.dev/Document" },
            },
          ],
        }),
      );
      for (const bytes of [config, provenance, sbom])
        await h.oci().pushBlob("acme/cosigned", bytes);
      const tag = `sha256-${digest.slice(7)}.att`;
      const res = await h.oci().putManifest("acme/cosigned", tag, manifest);
      assert.equal(res.status, 201);
      const row = await h.settled(digest, "done", (r) => r.sbom_digest === sha256(manifest));
      assert.equal(row.sbom_source, "pushed");
      assert.equal(row.distro, "wolfi");
      assert.deepEqual(
        (await h.packagesOf(digest)).map((p) => p.name).sort(),
        wolfiPackages.map((p) => p.name).sort(),
      );
      assert.deepEqual((await h.sbomsOf(digest)).map((s) => [s.source, s.state, s.format]).sort(), [
        ["generated", "parsed", "spdx-2.3"],
        ["pushed", "parsed", "spdx-2.3"],
      ]);
      // The attestation manifest is not an image: it is never queued itself.
      assert.equal(await h.scanOf(sha256(manifest)), undefined);
    });

    it("a BuildKit SBOM attestation in the image's index is read as the image's SBOM", async () => {
      const image = await imageOf([[packageFiles.apk, { name: "marker", content: "buildx" }]]);
      const statement = (predicateType: string, predicate: unknown) =>
        Buffer.from(
          JSON.stringify({
            _type: "https://in-toto.io/Statement/v0.1",
            predicateType,
            subject: [
              {
                name: "pkg:docker/acme/buildx@v1?platform=linux%2Famd64",
                digest: { sha256: image.descriptor.digest.slice(7) },
              },
            ],
            predicate,
          }),
        );
      const provenance = statement("https://slsa.dev/provenance/v0.2", { buildType: "x" });
      const sbom = statement(
        "https://spdx.dev/Document",
        JSON.parse(sbomFixture("app-image.spdx.json")),
      );
      const config = Buffer.from(
        JSON.stringify({ architecture: "unknown", os: "unknown", rootfs: { type: "layers" } }),
      );
      const IN_TOTO = "application/vnd.in-toto+json";
      const layer = (bytes: Buffer, predicateType: string) => ({
        mediaType: IN_TOTO,
        digest: sha256(bytes),
        size: bytes.length,
        annotations: { "in-toto.io/predicate-type": predicateType },
      });
      const attestation = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: "application/vnd.oci.image.manifest.v1+json",
          config: {
            mediaType: "application/vnd.oci.image.config.v1+json",
            digest: sha256(config),
            size: config.length,
          },
          layers: [
            layer(provenance, "https://slsa.dev/provenance/v0.2"),
            layer(sbom, "https://spdx.dev/Document"),
          ],
        }),
      );
      const index = Buffer.from(
        JSON.stringify({
          schemaVersion: 2,
          mediaType: "application/vnd.oci.image.index.v1+json",
          manifests: [
            image.descriptor,
            {
              mediaType: "application/vnd.oci.image.manifest.v1+json",
              digest: sha256(attestation),
              size: attestation.length,
              platform: { architecture: "unknown", os: "unknown" },
              annotations: {
                "vnd.docker.reference.digest": image.descriptor.digest,
                "vnd.docker.reference.type": "attestation-manifest",
              },
            },
          ],
        }),
      );
      const blobsToPush = [...image.blobs.values(), config, provenance, sbom];
      for (const bytes of blobsToPush) await h.oci().pushBlob("acme/buildx", bytes);
      for (const [bytes, ref] of [
        [image.manifest, image.descriptor.digest],
        [attestation, sha256(attestation)],
      ] as const) {
        assert.equal((await h.oci().putManifest("acme/buildx", ref, bytes)).status, 201);
      }
      const res = await h
        .oci()
        .putManifest("acme/buildx", "v1", index, "application/vnd.oci.image.index.v1+json");
      assert.equal(res.status, 201);
      const digest = image.descriptor.digest;
      const row = await h.settled(digest, "done", (r) => r.sbom_digest === sha256(attestation));
      assert.equal(row.sbom_source, "pushed");
      assert.deepEqual(
        (await h.packagesOf(digest)).map((p) => p.name),
        ["busybox", "golang.org/x/net", "log4j-core", "express", "Flask"],
      );
      const recorded = (await h.sbomsOf(digest)).find((s) => s.sbom_digest === sha256(attestation));
      assert.deepEqual(
        recorded && [recorded.source, recorded.format, recorded.state, recorded.package_count],
        ["pushed", "spdx-2.3", "parsed", 5],
      );
      assert.equal(await h.scanOf(sha256(attestation)), undefined);
      assert.equal(await h.scanOf(sha256(index)), undefined);
    });

    it("a malformed SBOM and an oversized one are accepted by the push and recorded as failed", async () => {
      const image = await imageOf([
        [packageFiles.osRelease, packageFiles.apk, { name: "marker", content: "6" }],
      ]);
      const digest = await h.oci().pushImage("acme/bad-sboms", "v1", image);
      await h.settled(digest, "done");
      const bad = await h.pushReferrer(
        "acme/bad-sboms",
        referrerOf(image.descriptor, SPDX, Buffer.from(sbomFixture("bad.json")), SPDX),
      );
      const afterBad = await h.settled(digest, "done", (row) => row.reason.includes(bad));
      assert.equal(afterBad.sbom_source, "generated");
      assert.match(afterBad.reason, /no pushed SBOM could be read/);
      const failed = (await h.sbomsOf(digest)).find((s) => s.sbom_digest === bad);
      assert.equal(failed?.state, "failed");
      assert.equal(failed?.format, "spdx");
      assert.match(failed?.reason ?? "", /^not valid JSON/);
      // Generating again after the rescan wrote the same document: still one generated SBOM.
      const generatedRows = (await h.sbomsOf(digest)).filter((s) => s.source === "generated");
      assert.deepEqual(
        generatedRows.map((s) => s.sbom_digest),
        [afterBad.sbom_digest],
      );
      assert.deepEqual(
        (await h.referrers("acme/bad-sboms", digest)).map((m) => m.digest),
        [bad],
      );

      const huge = Buffer.alloc(MAX_SBOM_BYTES + 1, 0x20);
      huge.write('{"spdxVersion":"SPDX-2.3","packages":[]}');
      const big = await h.pushReferrer(
        "acme/bad-sboms",
        referrerOf(image.descriptor, SPDX, huge, SPDX),
      );
      const tooBig = await waitFor("the oversized SBOM's row", async () =>
        (await h.sbomsOf(digest)).find((s) => s.sbom_digest === big),
      );
      assert.equal(tooBig.state, "failed");
      assert.equal(
        tooBig.reason,
        `the SBOM is ${MAX_SBOM_BYTES + 1} bytes, more than the ${MAX_SBOM_BYTES} (64 MiB) allowed`,
      );
      assert.equal((await h.scanOf(digest))?.sbom_source, "generated");
    });
  });
}
