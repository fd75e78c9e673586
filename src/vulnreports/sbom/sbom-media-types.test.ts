import assert from "node:assert/strict";
import { test } from "node:test";
import { sbomKindOf, sbomMediaTypes } from "./sbom-media-types.ts";

test("SPDX JSON is named by both the registered and the text/ media type", () => {
  assert.equal(sbomKindOf("application/spdx+json"), "spdx");
  assert.equal(sbomKindOf("text/spdx+json"), "spdx");
});

test("CycloneDX JSON is recognised with or without a version parameter", () => {
  assert.equal(sbomKindOf("application/vnd.cyclonedx+json"), "cyclonedx");
  assert.equal(sbomKindOf("application/vnd.cyclonedx+json;version=1.5"), "cyclonedx");
  assert.equal(sbomKindOf("Application/VND.CycloneDX+JSON; version=1.6"), "cyclonedx");
});

test("in-toto statements and DSSE envelopes are attestation kinds", () => {
  assert.equal(sbomKindOf("application/vnd.in-toto+json"), "in-toto");
  assert.equal(sbomKindOf("application/vnd.dsse.envelope.v1+json"), "dsse");
});

test("media types that name no SBOM, including plain JSON and other formats, are undefined", () => {
  for (const type of [
    "application/json",
    "application/vnd.oci.image.manifest.v1+json",
    "application/vnd.cyclonedx+xml",
    "text/spdx",
    "",
  ]) {
    assert.equal(sbomKindOf(type), undefined, type);
  }
});

test("the list of SBOM media types is exactly what sbomKindOf recognises", () => {
  assert.deepEqual(
    sbomMediaTypes.map((t) => sbomKindOf(t)),
    ["spdx", "spdx", "cyclonedx", "in-toto", "dsse"],
  );
});
