import assert from "node:assert/strict";
import { test } from "node:test";
import { diffPlatforms, type ScannedImage } from "./image-diff.ts";
import type { ImageScanData } from "./image-scan-data.ts";
import type { Severity, StoredMatch } from "./stored-match.ts";

function image(architecture: string, size: bigint, scan: Partial<ImageScanData>): ScannedImage {
  return {
    architecture,
    os: "linux",
    digest: `sha256:${architecture}`,
    size,
    scan: {
      state: "done",
      reason: "",
      generation: 1,
      reportTime: "",
      packages: [],
      matches: [],
      sbomDigest: "",
      sbomSource: "",
      ...scan,
    },
  };
}

test("a failed scan is reported with its reason, and nothing is compared", () => {
  const [amd64] = diffPlatforms(
    [image("amd64", 100n, {})],
    [image("amd64", 80n, { state: "failed", reason: "layer too large" })],
  );
  assert.equal(amd64.complete, false);
  assert.deepEqual(amd64.to, {
    digest: "sha256:amd64",
    size: 80n,
    scanState: "failed",
    reason: "layer too large",
    sbomDigest: "",
    sbomSource: "",
  });
  assert.equal(amd64.sizeChange, -20n);
  assert.deepEqual([amd64.added, amd64.fixed, amd64.countsAfter.high], [[], [], 0]);
});

test("architectures of from come first; one side only is absent on the other", () => {
  const diffs = diffPlatforms(
    [image("arm64", 1n, {}), image("amd64", 1n, {})],
    [image("amd64", 1n, {}), image("s390x", 5n, {})],
  );
  assert.deepEqual(
    diffs.map((d) => `${d.architecture} ${d.from.scanState} ${d.to.scanState} ${d.complete}`),
    ["arm64 done absent false", "amd64 done done true", "s390x absent done false"],
  );
  assert.equal(diffs[2].sizeChange, 0n);
});

test("a CVE still matched in another package is not fixed; counts take the highest severity", () => {
  const m = (id: string, severity: Severity, name: string): StoredMatch => ({
    vulnerability: { id, severity, relatedIds: [] },
    pkg: { name, version: "1", purl: "" },
    fix: { state: "", versions: [] },
  });
  const [d] = diffPlatforms(
    [image("amd64", 1n, { matches: [m("CVE-1", "LOW", "a"), m("CVE-1", "HIGH", "b")] })],
    [image("amd64", 1n, { matches: [m("CVE-1", "LOW", "b")] })],
  );
  assert.deepEqual(d.fixed, []);
  assert.deepEqual([d.countsBefore.high, d.countsBefore.low], [1, 0]);
  assert.deepEqual([d.countsAfter.high, d.countsAfter.low], [0, 1]);
});
