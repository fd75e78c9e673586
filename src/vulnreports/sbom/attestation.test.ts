import assert from "node:assert/strict";
import { test } from "node:test";
import { unwrapDsse, unwrapStatement } from "./attestation.ts";

const statement = (extra: Record<string, unknown>) => ({
  _type: "https://in-toto.io/Statement/v1",
  subject: [{ name: "img", digest: { sha256: "ab" } }],
  predicateType: "https://spdx.dev/Document",
  predicate: { spdxVersion: "SPDX-2.3" },
  ...extra,
});

test("SPDX and CycloneDX predicates, with or without a version, are unwrapped", () => {
  const cases: [string, string][] = [
    ["https://spdx.dev/Document", "spdx"],
    ["https://spdx.dev/Document/v2.3", "spdx"],
    ["https://cyclonedx.org/bom", "cyclonedx"],
    ["https://cyclonedx.org/bom/v1.5", "cyclonedx"],
  ];
  for (const [predicateType, kind] of cases) {
    assert.deepEqual(
      unwrapStatement(statement({ predicateType })).value?.kind,
      kind,
      predicateType,
    );
  }
  const v01 = unwrapStatement(statement({ _type: "https://in-toto.io/Statement/v0.1" }));
  assert.deepEqual(v01.value, { kind: "spdx", sbom: { spdxVersion: "SPDX-2.3" } });
});

test("statements that carry no SBOM are refused with the reason", () => {
  assert.deepEqual(unwrapStatement(statement({ _type: "https://in-toto.io/Statement/v2" })), {
    error: '_type "https://in-toto.io/Statement/v2" is not an in-toto Statement v0.1 or v1',
  });
  assert.deepEqual(
    unwrapStatement(statement({ predicateType: "https://slsa.dev/provenance/v1" })),
    {
      error: 'predicateType "https://slsa.dev/provenance/v1" is not an SPDX or CycloneDX SBOM',
    },
  );
  assert.deepEqual(unwrapStatement(statement({ predicate: "SPDXVersion: SPDX-2.3" })), {
    error: "the spdx predicate is not a JSON object",
  });
  assert.deepEqual(unwrapStatement(null), { error: "an in-toto statement must be a JSON object" });
});

test("a DSSE envelope gives its payload bytes, standard or URL-safe base64", () => {
  const bytes = Buffer.from('{"_type":"x?>>"}');
  for (const payload of [bytes.toString("base64"), bytes.toString("base64url")]) {
    const result = unwrapDsse({
      payloadType: "application/vnd.in-toto+json",
      payload,
      signatures: [],
    });
    assert.deepEqual(result.value, bytes, payload);
  }
});

test("DSSE envelopes of another payload type or with a broken payload are refused", () => {
  assert.deepEqual(unwrapDsse({ payloadType: "text/plain", payload: "eA==" }), {
    error: 'DSSE payloadType "text/plain" is not application/vnd.in-toto+json',
  });
  assert.deepEqual(unwrapDsse({ payloadType: "application/vnd.in-toto+json", payload: "e A=" }), {
    error: "the DSSE payload is not base64",
  });
  assert.deepEqual(unwrapDsse({ payloadType: "application/vnd.in-toto+json" }), {
    error: "the DSSE payload is missing",
  });
});
