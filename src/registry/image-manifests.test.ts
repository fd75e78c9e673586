import assert from "node:assert/strict";
import { it } from "node:test";
import { imageSize, isIndex, platformArchitecture } from "./image-manifests.ts";

it("names platforms, appending the variant and leaving out unknown ones", () => {
  assert.equal(platformArchitecture({ architecture: "amd64", os: "linux" }), "amd64");
  assert.equal(platformArchitecture({ architecture: "arm", os: "linux", variant: "v7" }), "arm/v7");
  assert.equal(platformArchitecture({ architecture: "unknown", os: "unknown" }), undefined);
  assert.equal(platformArchitecture({ architecture: "amd64", os: "unknown" }), undefined);
  assert.equal(platformArchitecture(undefined), undefined);
});

it("tells indexes from image manifests by media type, or by shape when it has none", () => {
  assert.equal(isIndex("application/vnd.oci.image.index.v1+json", {}), true);
  assert.equal(isIndex("application/vnd.docker.distribution.manifest.list.v2+json", {}), true);
  assert.equal(isIndex("application/vnd.oci.image.manifest.v1+json", { manifests: [] }), false);
  assert.equal(isIndex("", { manifests: [] }), true);
  assert.equal(isIndex("", { layers: [] }), false);
});

it("sizes an image as its config plus its layers", () => {
  const config = { digest: "sha256:c", size: 7 };
  const layers = [
    { digest: "sha256:a", size: 100 },
    { digest: "sha256:b", size: 2 ** 40 },
  ];
  assert.equal(imageSize({ config, layers }), 107n + 2n ** 40n);
  assert.equal(imageSize({}), 0n);
});
