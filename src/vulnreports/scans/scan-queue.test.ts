import assert from "node:assert/strict";
import { test } from "node:test";
import type { PushedManifest } from "./pushed-manifest.ts";
import { distroOfPurls } from "./scan-image.ts";
import { queueActionOf } from "./scan-queue.ts";

const image: PushedManifest = {
  repoUid: "r",
  digest: "sha256:aa",
  mediaType: "application/vnd.oci.image.manifest.v1+json",
  artifactType: "application/vnd.oci.image.config.v1+json",
  configMediaType: "application/vnd.oci.image.config.v1+json",
  layerMediaTypes: ["application/vnd.oci.image.layer.v1.tar+gzip"],
  subjectDigest: null,
  childDigests: [],
  tags: ["v1"],
};
const referrer = (types: Partial<PushedManifest>): PushedManifest => ({
  ...image,
  digest: "sha256:bb",
  subjectDigest: "sha256:aa",
  artifactType: "",
  configMediaType: "application/vnd.oci.empty.v1+json",
  layerMediaTypes: [],
  ...types,
});

test("an image manifest is queued", () => {
  assert.deepEqual(queueActionOf(image), { kind: "scan", digests: ["sha256:aa"] });
});

test("an index queues each entry once", () => {
  const index = {
    ...image,
    digest: "sha256:ii",
    mediaType: "application/vnd.oci.image.index.v1+json",
    artifactType: "",
    configMediaType: "",
    layerMediaTypes: [],
    childDigests: ["sha256:c1", "sha256:c2", "sha256:c1"],
  };
  assert.deepEqual(queueActionOf(index), { kind: "scan", digests: ["sha256:c1", "sha256:c2"] });
  const list = { ...index, mediaType: "application/vnd.docker.distribution.manifest.list.v2+json" };
  assert.deepEqual(queueActionOf(list).kind, "scan");
  assert.deepEqual(queueActionOf({ ...index, childDigests: [] }), { kind: "none" });
});

test("an SBOM referrer sends its subject back to the queue, whichever field names the SBOM", () => {
  const rescan = { kind: "rescan", digest: "sha256:aa" };
  assert.deepEqual(queueActionOf(referrer({ artifactType: "application/spdx+json" })), rescan);
  assert.deepEqual(
    queueActionOf(referrer({ configMediaType: "application/vnd.cyclonedx+json" })),
    rescan,
  );
  assert.deepEqual(
    queueActionOf(referrer({ layerMediaTypes: ["application/vnd.dsse.envelope.v1+json"] })),
    rescan,
  );
  assert.deepEqual(
    queueActionOf(referrer({ layerMediaTypes: ["application/vnd.in-toto+json"] })),
    rescan,
  );
});

test("other referrers (signatures, VEX) are not scanned", () => {
  const signature = referrer({
    artifactType: "application/vnd.dev.cosign.artifact.sig.v1+json",
    layerMediaTypes: ["application/vnd.dev.cosign.simplesigning.v1+json"],
  });
  assert.deepEqual(queueActionOf(signature), { kind: "none" });
  assert.deepEqual(queueActionOf(referrer({ artifactType: "application/json" })), {
    kind: "none",
  });
});

test("a pushed SBOM's distribution comes from its apk or deb purls", () => {
  const p = (purl: string, ecosystem: string) => ({
    name: "x",
    version: "1",
    purl,
    ecosystem,
    licence: "",
  });
  assert.equal(
    distroOfPurls([p("pkg:npm/a@1", "npm"), p("pkg:apk/alpine/x@1?distro=alpine-3.20.3", "apk")]),
    "alpine 3.20.3",
  );
  assert.equal(
    distroOfPurls([p("pkg:deb/debian/x@1?arch=amd64&distro=debian-12", "deb")]),
    "debian 12",
  );
  assert.equal(distroOfPurls([p("pkg:apk/alpine/x@1?distro=3.20.3", "apk")]), "alpine 3.20.3");
  assert.equal(distroOfPurls([p("pkg:apk/wolfi/x@1?distro=wolfi", "apk")]), "wolfi");
  assert.equal(distroOfPurls([p("pkg:apk/alpine/x@1", "apk"), p("pkg:pypi/y@2", "pypi")]), "");
});

test("a manifest under cosign's attestation or SBOM tag sends the image it names back", () => {
  const hex = "ab".repeat(32);
  const attestation = {
    ...image,
    digest: "sha256:cc",
    artifactType: "application/vnd.oci.image.config.v1+json",
    layerMediaTypes: ["application/vnd.dsse.envelope.v1+json"],
  };
  for (const suffix of ["att", "sbom"]) {
    assert.deepEqual(queueActionOf({ ...attestation, tags: [`sha256-${hex}.${suffix}`] }), {
      kind: "rescan",
      digest: `sha256:${hex}`,
    });
  }
  // Signatures and look-alike tags are not attestations.
  assert.deepEqual(queueActionOf({ ...attestation, tags: [`sha256-${hex}.sig`] }), {
    kind: "scan",
    digests: ["sha256:cc"],
  });
  assert.deepEqual(
    queueActionOf({ ...attestation, tags: [`sha256-${hex.slice(2)}.att`] }).kind,
    "scan",
  );
});
