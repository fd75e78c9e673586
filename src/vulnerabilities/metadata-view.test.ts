import assert from "node:assert/strict";
import { test } from "node:test";
import type { VulnerabilitiesTable } from "../store/metadata/index.ts";
import { metadataOwnerOf, overlayMetadata, publicMetadata } from "./metadata-view.ts";
import { publicAdvisoriesGroupUid } from "./public-advisories.ts";

const empty: VulnerabilitiesTable = {
  id: "CVE-2024-1",
  summary: "",
  details: "",
  aliases: "[]",
  references: "[]",
  severities: "[]",
  cwes: "[]",
  published: "",
  modified: "",
  kev: "",
  epss_score: null,
  epss_percentile: null,
  epss_date: "",
  withdrawn_time: null,
  withdrawn_reason: "",
  create_time: "2024-01-01T00:00:00.000Z",
  update_time: "2024-01-01T00:00:00.000Z",
};

const pub: VulnerabilitiesTable = {
  ...empty,
  summary: "public",
  details: "public details",
  aliases: '["GHSA-a"]',
  severities: '[{"type":"CVSS_V3","score":"v3"}]',
  cwes: '["CWE-79"]',
  kev: '{"dateAdded":"2024-02-01"}',
  epss_score: 0.5,
  epss_percentile: 0.9,
  epss_date: "2024-02-02",
};

test("an organisation's copy replaces the fields it states and keeps the operator's others", () => {
  const own = {
    ...empty,
    org_uid: "a".repeat(40),
    summary: "ours",
    aliases: '["GHSA-b"]',
    severities: '[{"type":"CVSS_V3","score":"ours"}]',
    update_time: "2024-03-01T00:00:00.000Z",
  };
  const view = overlayMetadata(pub, own);
  assert.deepEqual(view, {
    ...pub,
    summary: "ours",
    aliases: '["GHSA-a","GHSA-b"]',
    severities: '[{"type":"CVSS_V3","score":"ours"}]',
    update_time: "2024-03-01T00:00:00.000Z",
  });
  assert.equal("org_uid" in (view ?? {}), false);
});

test("a copy alone, or the public row alone, is read as it is", () => {
  const own = { ...pub, org_uid: "a".repeat(40) };
  assert.deepEqual(overlayMetadata(undefined, own), pub);
  assert.equal(overlayMetadata(pub, undefined), pub);
  assert.equal(overlayMetadata(undefined, undefined), undefined);
});

test("a withdrawal or EPSS the copy states wins", () => {
  const own = {
    ...empty,
    withdrawn_time: "2024-04-01T00:00:00.000Z",
    withdrawn_reason: "ours",
    epss_score: 0.1,
    epss_percentile: 0.2,
    epss_date: "2024-04-02",
  };
  const view = overlayMetadata(pub, own);
  assert.equal(view?.withdrawn_reason, "ours");
  assert.deepEqual(
    [view?.epss_score, view?.epss_percentile, view?.epss_date],
    [0.1, 0.2, "2024-04-02"],
  );
});

test("the public advisories group writes public metadata; any other group its organisation's", () => {
  const org = "b".repeat(40);
  assert.equal(metadataOwnerOf(publicAdvisoriesGroupUid), publicMetadata);
  assert.equal(metadataOwnerOf(`${publicAdvisoriesGroupUid}/0123456789abcdef`), publicMetadata);
  assert.equal(metadataOwnerOf(org), org);
  assert.equal(metadataOwnerOf(`${org}/0123456789abcdef`), org);
});
