import assert from "node:assert/strict";
import { test } from "node:test";
import type { ScanManifest } from "./image-manifest.ts";
import { sbomLayersOf } from "./pushed-sboms.ts";

const manifest = (over: Partial<ScanManifest>): ScanManifest => ({
  isIndex: false,
  artifactType: "",
  config: { mediaType: "application/vnd.oci.empty.v1+json", digest: "sha256:c", size: 2 },
  layers: [],
  annotations: {},
  ...over,
});
const layer = (digest: string, mediaType: string, predicateType?: string) => ({
  digest,
  mediaType,
  size: 10,
  ...(predicateType ? { annotations: { predicateType } } : {}),
});
const DSSE = "application/vnd.dsse.envelope.v1+json";

test("attestation layers announcing an SBOM come first; provenance is never read", () => {
  const att = manifest({
    config: { mediaType: "application/vnd.oci.image.config.v1+json", digest: "sha256:c", size: 9 },
    layers: [
      layer("sha256:1", DSSE, "https://slsa.dev/provenance/v0.2"),
      layer("sha256:2", DSSE),
      layer("sha256:3", DSSE, "https://spdx.dev/Document"),
      layer("sha256:4", DSSE, "https://cyclonedx.org/bom/v1.5"),
    ],
  });
  assert.deepEqual(
    sbomLayersOf(att).map((l) => [l.layer.digest, l.mediaType]),
    [
      ["sha256:3", DSSE],
      ["sha256:4", DSSE],
      ["sha256:2", DSSE],
    ],
  );
});

test("a type named only on the manifest reads the first layer under that name (oras attach)", () => {
  const oras = manifest({
    artifactType: "application/spdx+json",
    layers: [layer("sha256:1", "application/vnd.oci.image.layer.v1.tar")],
  });
  assert.deepEqual(sbomLayersOf(oras), [
    { layer: oras.layers[0], mediaType: "application/spdx+json" },
  ]);
  const configNamed = manifest({
    config: { mediaType: "application/vnd.cyclonedx+json", digest: "sha256:c", size: 9 },
    artifactType: "application/vnd.cyclonedx+json",
    layers: [layer("sha256:1", "application/json")],
  });
  assert.equal(sbomLayersOf(configNamed)[0].mediaType, "application/vnd.cyclonedx+json");
});

test("signatures and empty SBOM artifacts have no SBOM layer", () => {
  const signature = manifest({
    artifactType: "application/vnd.dev.cosign.artifact.sig.v1+json",
    layers: [layer("sha256:1", "application/vnd.dev.cosign.simplesigning.v1+json")],
  });
  assert.deepEqual(sbomLayersOf(signature), []);
  assert.deepEqual(sbomLayersOf(manifest({ artifactType: "application/spdx+json" })), []);
});
