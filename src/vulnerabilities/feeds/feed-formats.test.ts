import assert from "node:assert/strict";
import { test } from "node:test";
import { normaliseTimestamp } from "./feed-timestamp.ts";
import { feedParsers, parseAdvisoryYaml, parseOpenVex, parseOsv } from "./index.ts";
import { isUpstreamId } from "./upstream-id.ts";

test("each format names its parser", () => {
  assert.deepEqual(feedParsers, {
    advisories: parseAdvisoryYaml,
    osv: parseOsv,
    openvex: parseOpenVex,
  });
});

test("timestamps are normalised to UTC with milliseconds; impossible dates are refused", () => {
  assert.deepEqual(normaliseTimestamp("2024-05-01T12:00:00+02:00"), {
    value: "2024-05-01T10:00:00.000Z",
  });
  assert.deepEqual(normaliseTimestamp("2024-05-01T10:00:00.5Z"), {
    value: "2024-05-01T10:00:00.500Z",
  });
  assert.ok("error" in normaliseTimestamp("2024-02-30T00:00:00Z"));
  assert.ok("error" in normaliseTimestamp("2024-05-01T10:00:00"));
  assert.ok("error" in normaliseTimestamp(20240501));
});

test("aliases are CVE, GHSA or GO ids", () => {
  for (const id of ["CVE-2024-1234", "CVE-2021-44228000", "GHSA-2345-6789-cfgh", "GO-2024-2631"])
    assert.ok(isUpstreamId(id), id);
  for (const id of [
    "CVE-24-1",
    "GHSA-abcd-2345-6789",
    "GO-2024-1",
    "CGA-2345-6789-cfgh",
    "PYSEC-2024-1",
  ])
    assert.ok(!isUpstreamId(id), id);
});
