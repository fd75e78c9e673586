import assert from "node:assert/strict";
import { test } from "node:test";
import type { SeverityRecord } from "./feed-records.ts";
import { cvssVersionOf, withBaseScores } from "./severity-scores.ts";

test("a severity with only a vector gets its base score and CVSS version, for every version", () => {
  const given: SeverityRecord[] = [
    { type: "CVSS_V2", score: "AV:N/AC:L/Au:N/C:P/I:P/A:P" },
    { type: "CVSS_V3", score: "CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H" },
    { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:L/I:L/A:N" },
    { type: "CVSS_V4", score: "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:H/SC:N/SI:N/SA:N" },
  ];
  assert.deepEqual(
    withBaseScores(given).map((s) => [s.baseScore, s.version]),
    [
      [7.5, "2.0"],
      [10, "3.0"],
      [5.4, "3.1"],
      [8.7, "4.0"],
    ],
  );
  // The records given are left as they were.
  assert.equal(given[0].baseScore, undefined);
});

test("a score the source gave is kept, and gets the version of its vector", () => {
  const [nvd] = withBaseScores([
    { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", baseScore: 9.8 },
  ]);
  assert.deepEqual(nvd, {
    type: "CVSS_V3",
    score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
    baseScore: 9.8,
    version: "3.1",
  });
});

test("Ubuntu priorities and vectors that do not score stay without a score or version", () => {
  const kept: SeverityRecord[] = [
    { type: "UBUNTU", score: "medium" },
    { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L" },
    { type: "CVSS_V3", score: "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N" },
    { type: "CVSS_V4", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" },
    { type: "CVSS_V2", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" },
    { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:X" },
  ];
  assert.deepEqual(withBaseScores(kept), kept);
});

test("the CVSS version of a vector fits its type", () => {
  const version = (type: SeverityRecord["type"], score: string) => cvssVersionOf({ type, score });
  assert.equal(version("CVSS_V2", "AV:N/AC:L/Au:N/C:P/I:P/A:P"), "2.0");
  assert.equal(version("CVSS_V3", "CVSS:3.0/AV:N"), "3.0");
  assert.equal(version("CVSS_V3", "CVSS:3.1/AV:N"), "3.1");
  assert.equal(version("CVSS_V4", "CVSS:4.0/AV:N"), "4.0");
  assert.equal(version("CVSS_V3", "CVSS:4.0/AV:N"), undefined);
  assert.equal(version("CVSS_V3", "AV:N/AC:L"), undefined);
  assert.equal(version("UBUNTU", "high"), undefined);
});
