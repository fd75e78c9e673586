import assert from "node:assert/strict";
import { test } from "node:test";
import type { ImageScanData } from "../diff/index.ts";
import { buildOpenVex, type VexPlatform } from "./openvex-document.ts";

const digest = (c: string) => `sha256:${c.repeat(64)}`;

function platform(
  architecture: string,
  c: string,
  libcrypto: string,
  generation: number,
): VexPlatform {
  const pkg = {
    name: "libcrypto3",
    version: libcrypto,
    purl: `pkg:apk/wolfi/libcrypto3@${libcrypto}`,
    ecosystem: "apk",
    origin: "openssl",
  };
  const scan: ImageScanData = {
    state: "done",
    reason: "",
    generation,
    reportTime: `2026-03-0${generation}T00:00:00.000Z`,
    packages: [pkg],
    matches: [],
    sbomDigest: "",
    sbomSource: "",
  };
  return { architecture, digest: digest(c), scan };
}

test("an origin package's advisory applies to its subpackages; equal statements merge", () => {
  const doc = buildOpenVex({
    repoUid: "r",
    digest: digest("f"),
    isIndex: true,
    imageName: "app",
    repositoryUrl: "registry.example:5000/acme/tools/app",
    platforms: [
      platform("amd64", "a", "3.1.4-r0", 1),
      platform("arm/v7", "b", "3.1.4-r0", 2),
      platform("arm64", "c", "3.1.1-r0", 3),
    ],
    advisories: [
      {
        advisoryId: "CGA-2222-3333-4444",
        aliases: ["GHSA-xxxx-yyyy-zzzz"],
        artifactName: "openssl",
        events: [
          { timestamp: "2026-01-01T00:00:00.000Z", type: "detection" },
          { timestamp: "2026-01-02T00:00:00.000Z", type: "fixed", fixedVersion: "3.1.2-r0" },
        ],
      },
    ],
  });
  // arm64 has 3.1.1-r0, below the fix, and no match: the scanner decided, nothing is stated.
  assert.equal(doc.statements.length, 1);
  const [statement] = doc.statements;
  assert.equal(statement.status, "fixed");
  assert.deepEqual(statement.vulnerability, {
    name: "CGA-2222-3333-4444",
    aliases: ["GHSA-xxxx-yyyy-zzzz"],
  });
  assert.deepEqual(
    statement.products.map((p) => p.id),
    [
      `pkg:oci/app@${digest("a")}?arch=amd64&repository_url=registry.example:5000/acme/tools/app`,
      `pkg:oci/app@${digest("b")}?arch=arm%2Fv7&repository_url=registry.example:5000/acme/tools/app`,
    ],
  );
  assert.equal(statement.timestamp, "2026-01-02T00:00:00.000Z");
  assert.equal(doc.version, 6);
  assert.equal(doc.timestamp, "2026-03-03T00:00:00.000Z");
});
