import assert from "node:assert/strict";
import { test } from "node:test";
import {
  mixedAppPackages,
  sbomFixture,
  wolfiPackages,
} from "../../../test/support/sbom-fixtures.ts";
import { MAX_SBOM_BYTES, parseSbom } from "./parse-sbom.ts";

const SPDX = "application/spdx+json";
const CDX = "application/vnd.cyclonedx+json";
const IN_TOTO = "application/vnd.in-toto+json";
const DSSE = "application/vnd.dsse.envelope.v1+json";

test("SPDX and CycloneDX bodies are read by the media type that names them", () => {
  assert.deepEqual(
    parseSbom(sbomFixture("wolfi-image.spdx.json"), SPDX).value?.packages,
    wolfiPackages,
  );
  const cdx = parseSbom(Buffer.from(sbomFixture("mixed-app.cdx-1.5.json")), `${CDX};version=1.5`);
  assert.deepEqual(cdx.value?.packages, mixedAppPackages);
  assert.equal(
    parseSbom(sbomFixture("debian-tools.cdx-1.6.json"), CDX).value?.format,
    "cyclonedx-1.6",
  );
  assert.equal(parseSbom(sbomFixture("node-app.cdx-1.4.json"), CDX).value?.format, "cyclonedx-1.4");
});

test("an in-toto statement and a DSSE envelope around it give the SPDX packages", () => {
  const statement = parseSbom(sbomFixture("wolfi-image.intoto.json"), IN_TOTO);
  assert.equal(statement.error, undefined);
  assert.deepEqual(statement.value, { format: "spdx-2.3", packages: wolfiPackages, notes: [] });
  const envelope = parseSbom(sbomFixture("wolfi-image.dsse.json"), DSSE);
  assert.equal(envelope.error, undefined);
  assert.deepEqual(envelope.value, statement.value);
});

test("cosign's labels for attestations stand for each other", () => {
  assert.deepEqual(
    parseSbom(sbomFixture("wolfi-image.dsse.json"), IN_TOTO).value?.packages,
    wolfiPackages,
  );
  assert.deepEqual(
    parseSbom(sbomFixture("wolfi-image.intoto.json"), DSSE).value?.packages,
    wolfiPackages,
  );
});

test("a plain JSON media type lets the content decide", () => {
  for (const type of ["application/json", "application/octet-stream", ""]) {
    assert.deepEqual(
      parseSbom(sbomFixture("wolfi-image.dsse.json"), type).value?.packages,
      wolfiPackages,
    );
  }
  assert.deepEqual(parseSbom('{"hello":1}', "application/json"), {
    error: "the body is not an SPDX, CycloneDX, in-toto or DSSE document",
  });
});

test("a media type that is no SBOM, or names another kind than the body, is refused", () => {
  assert.deepEqual(
    parseSbom(sbomFixture("wolfi-image.spdx.json"), "application/vnd.oci.image.manifest.v1+json"),
    {
      error: 'media type "application/vnd.oci.image.manifest.v1+json" does not name an SBOM',
    },
  );
  assert.deepEqual(parseSbom(sbomFixture("mixed-app.cdx-1.5.json"), SPDX), {
    error: "the media type names spdx but the body is cyclonedx",
  });
});

test("malformed and unsupported documents are refused with the reason", () => {
  assert.match(parseSbom(sbomFixture("bad.json"), SPDX).error ?? "", /^not valid JSON: /);
  assert.deepEqual(parseSbom(sbomFixture("spdx-2.1.spdx.json"), SPDX), {
    error: 'spdxVersion "SPDX-2.1" is not one Lading reads (SPDX-2.2, SPDX-2.3)',
  });
  assert.deepEqual(parseSbom(sbomFixture("old.cdx-1.2.json"), CDX), {
    error: 'CycloneDX specVersion "1.2" is not one Lading reads (1.4, 1.5, 1.6)',
  });
  assert.deepEqual(parseSbom("", SPDX), { error: "the SBOM is empty" });
  assert.deepEqual(parseSbom("[]", SPDX), { error: "an SPDX document must be a JSON object" });
});

test("JSON nested deeper than 64 levels is refused before it is parsed", () => {
  assert.deepEqual(parseSbom(sbomFixture("too-deep.cdx-1.5.json"), CDX), {
    error: "the JSON nests deeper than the 64 levels allowed",
  });
  assert.deepEqual(parseSbom(`${"[".repeat(5_000_000)}`, CDX), {
    error: "the JSON nests deeper than the 64 levels allowed",
  });
});

test("bodies over 64 MiB are refused by size, as bytes or as text", () => {
  const padding = "x".repeat(MAX_SBOM_BYTES);
  const body = `{"bomFormat":"CycloneDX","specVersion":"1.5","comment":"${padding}"}`;
  const error = `the SBOM is ${body.length} bytes, more than the ${MAX_SBOM_BYTES} (64 MiB) allowed`;
  assert.deepEqual(parseSbom(body, CDX), { error });
  assert.deepEqual(parseSbom(Buffer.from(body), CDX), { error });
  // Size is bytes, not characters: 22.4M three-byte characters are over the limit.
  const wide = "€".repeat(Math.ceil(MAX_SBOM_BYTES / 3) + 1);
  assert.match(parseSbom(wide, CDX).error ?? "", /more than the 67108864 \(64 MiB\) allowed$/);
});

test("errors inside attestations say where they arose", () => {
  const statement = JSON.parse(sbomFixture("wolfi-image.intoto.json"));
  statement.predicate.spdxVersion = "SPDX-3.0";
  assert.deepEqual(parseSbom(JSON.stringify(statement), IN_TOTO), {
    error: 'in-toto predicate: spdxVersion "SPDX-3.0" is not one Lading reads (SPDX-2.2, SPDX-2.3)',
  });
  const envelope = (payload: unknown) =>
    JSON.stringify({
      payloadType: IN_TOTO,
      payload: Buffer.from(JSON.stringify(payload)).toString("base64"),
    });
  assert.deepEqual(parseSbom(envelope(statement), DSSE), {
    error:
      'DSSE payload: in-toto predicate: spdxVersion "SPDX-3.0" is not one Lading reads (SPDX-2.2, SPDX-2.3)',
  });
  assert.deepEqual(parseSbom(envelope({ payloadType: IN_TOTO, payload: "e30=" }), DSSE), {
    error: "DSSE payload: a DSSE envelope inside a DSSE payload is not read",
  });
  const notJson = JSON.stringify({
    payloadType: IN_TOTO,
    payload: Buffer.from("{not").toString("base64"),
  });
  assert.match(parseSbom(notJson, DSSE).error ?? "", /^DSSE payload: not valid JSON: /);
});
