import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sharedDataDir } from "../../versions/testdata/shared-data.ts";
import { parseNvd } from "./nvd-parser.ts";

const samples = sharedDataDir("vulnmeta");
const noSamples = samples ? false : "shared/data/vulnmeta is not beside this checkout";
const sampleText = (name: string) => readFileSync(join(samples ?? "", name), "utf8");

function page(cves: unknown[]): Record<string, unknown> {
  return {
    resultsPerPage: cves.length,
    startIndex: 0,
    totalResults: cves.length,
    format: "NVD_CVE",
    version: "2.0",
    vulnerabilities: cves,
  };
}

function cve(fields: Record<string, unknown> = {}): { cve: Record<string, unknown> } {
  return {
    cve: {
      id: "CVE-2024-0001",
      published: "2024-01-02T03:04:05.678",
      lastModified: "2024-02-03T04:05:06.789",
      vulnStatus: "Analyzed",
      descriptions: [{ lang: "en", value: "An example." }],
      ...fields,
    },
  };
}

const parse = (document: unknown) => parseNvd({ file: "nvd.json", text: JSON.stringify(document) });

test("the single-CVE sample gives CVE-2022-1576 in full", { skip: noSamples }, () => {
  const parsed = parseNvd({ file: "single.json", text: sampleText("nvd-cve-2.0-single.json") });
  assert.deepEqual(parsed.rejected, []);
  assert.deepEqual(parsed.advisories, []);
  assert.deepEqual(parsed.damagedDocuments, []);
  assert.equal(parsed.vulnerabilities.length, 1);
  assert.deepEqual(parsed.vulnerabilities[0], {
    id: "CVE-2022-1576",
    published: "2022-07-11T13:15:08.503Z",
    modified: "2024-11-21T06:41:00.133Z",
    details:
      "The WP Maintenance Mode & Coming Soon WordPress plugin before 2.4.5 is lacking CSRF when emptying the subscribed users list, which could allow attackers to make a logged in admin perform such action via a CSRF attack",
    // Listed twice by two sources, tagged Exploit and Third Party Advisory: one ADVISORY.
    references: [
      {
        type: "ADVISORY",
        url: "https://wpscan.com/vulnerability/68deab46-1c16-46ae-a912-a104958ca4cf",
      },
    ],
    severities: [
      { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:N/I:H/A:N", baseScore: 6.5 },
      { type: "CVSS_V2", score: "AV:N/AC:M/Au:N/C:N/I:P/A:N", baseScore: 4.3 },
    ],
    cwes: ["CWE-352"],
  });
});

test("the full-page sample gives all 38 CVEs", { skip: noSamples }, () => {
  const parsed = parseNvd({ file: "page.json", text: sampleText("nvd-cve-2.0-page.json") });
  assert.deepEqual(parsed.rejected, []);
  assert.equal(parsed.vulnerabilities.length, 38);
  assert.equal(new Set(parsed.vulnerabilities.map((record) => record.id)).size, 38);
  // 35 have cvssMetricV31, one severity each though 23 also carry a Secondary metric.
  const withSeverity = parsed.vulnerabilities.filter((record) => record.severities !== undefined);
  assert.equal(withSeverity.length, 35);
  assert.ok(
    withSeverity.every(
      (record) => record.severities?.length === 1 && record.severities[0].type === "CVSS_V3",
    ),
  );
  assert.ok(
    parsed.vulnerabilities.every((record) => record.details && record.modified?.endsWith("Z")),
  );
  assert.ok(
    parsed.vulnerabilities.every(
      (record) => record.summary === undefined && record.withdrawn === undefined,
    ),
  );
  // The page names NVD-CWE-noinfo four times; no such pseudo-CWE survives.
  assert.ok(
    parsed.vulnerabilities
      .flatMap((record) => record.cwes ?? [])
      .every((cwe) => /^CWE-\d+$/.test(cwe)),
  );
  const first = parsed.vulnerabilities[0];
  assert.equal(first.id, "CVE-2023-27314");
  assert.equal(first.modified, "2023-10-18T18:00:24.900Z");
});

test("Primary metrics win over Secondary ones, and each family gives one severity", () => {
  const metric = (type: string, vectorString: string, baseScore: number, version = "3.1") => ({
    source: type === "Primary" ? "nvd@nist.gov" : "cna@example.com",
    type,
    cvssData: { version, vectorString, baseScore },
  });
  const parsed = parse(
    page([
      cve({
        metrics: {
          cvssMetricV40: [
            metric(
              "Secondary",
              "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N",
              9.3,
              "4.0",
            ),
          ],
          cvssMetricV31: [
            metric("Secondary", "CVSS:3.1/AV:L/AC:L/PR:L/UI:N/S:U/C:H/I:N/A:N", 5.5),
            metric("Primary", "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", 9.8),
          ],
          cvssMetricV30: [
            metric("Primary", "CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H", 10, "3.0"),
          ],
          cvssMetricV2: [metric("Primary", "AV:N/AC:L/Au:N/C:P/I:P/A:P", 7.5, "2.0")],
        },
      }),
    ]),
  );
  assert.deepEqual(parsed.vulnerabilities[0].severities, [
    {
      type: "CVSS_V4",
      score: "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:H/VI:H/VA:H/SC:N/SI:N/SA:N",
      baseScore: 9.3,
    },
    { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H", baseScore: 9.8 },
    { type: "CVSS_V2", score: "AV:N/AC:L/Au:N/C:P/I:P/A:P", baseScore: 7.5 },
  ]);
});

test("a vector the library cannot score keeps the NVD's printed base score", () => {
  const parsed = parse(
    page([
      cve({
        metrics: {
          cvssMetricV31: [
            { type: "Primary", cvssData: { vectorString: "CVSS:3.1/AV:N", baseScore: 5.3 } },
          ],
        },
      }),
    ]),
  );
  assert.deepEqual(parsed.vulnerabilities[0].severities, [
    { type: "CVSS_V3", score: "CVSS:3.1/AV:N", baseScore: 5.3 },
  ]);
  const none = parse(
    page([
      cve({
        metrics: {
          cvssMetricV31: [{ type: "Primary", cvssData: { vectorString: "x", baseScore: "high" } }],
        },
      }),
    ]),
  );
  assert.deepEqual(none.vulnerabilities[0].severities, [{ type: "CVSS_V3", score: "x" }]);
});

test("reference types follow the NVD tags", () => {
  const refs = [
    ["https://e.test/patch", ["Patch", "Exploit", "Vendor Advisory"]],
    ["https://e.test/vendor", ["Vendor Advisory"]],
    ["https://e.test/third", ["Exploit", "Third Party Advisory"]],
    ["https://e.test/exploit", ["Exploit", "Issue Tracking"]],
    ["https://e.test/issue", ["Issue Tracking", "Mailing List"]],
    ["https://e.test/list", ["Mailing List"]],
    ["https://e.test/vdb", ["VDB Entry"]],
    ["https://e.test/untagged", undefined],
  ].map(([url, tags]) => ({ url, source: "nvd@nist.gov", tags }));
  const parsed = parse(
    page([cve({ references: [...refs, { url: 42 }, "junk", { tags: ["Patch"] }] })]),
  );
  assert.deepEqual(
    parsed.vulnerabilities[0].references?.map((ref) => `${ref.type} ${ref.url}`),
    [
      "FIX https://e.test/patch",
      "ADVISORY https://e.test/vendor",
      "ADVISORY https://e.test/third",
      "EVIDENCE https://e.test/exploit",
      "REPORT https://e.test/issue",
      "DISCUSSION https://e.test/list",
      "WEB https://e.test/vdb",
      "WEB https://e.test/untagged",
    ],
  );
});

test("descriptions: English first, else the first one; CWEs are unique and real", () => {
  const parsed = parse(
    page([
      cve({
        descriptions: [{ lang: "es", value: "Un ejemplo." }],
        weaknesses: [
          {
            type: "Primary",
            description: [
              { lang: "en", value: "CWE-79" },
              { lang: "en", value: "NVD-CWE-Other" },
            ],
          },
          {
            type: "Secondary",
            description: [
              { lang: "en", value: "CWE-79" },
              { lang: "en", value: "NVD-CWE-noinfo" },
            ],
          },
          { type: "Secondary", description: [{ lang: "en", value: "CWE-20" }, { value: "cwe-1" }] },
        ],
      }),
    ]),
  );
  assert.equal(parsed.vulnerabilities[0].details, "Un ejemplo.");
  assert.deepEqual(parsed.vulnerabilities[0].cwes, ["CWE-79", "CWE-20"]);
  const noinfo = parse(
    page([cve({ weaknesses: [{ description: [{ value: "NVD-CWE-noinfo" }] }] })]),
  );
  assert.equal(noinfo.vulnerabilities[0].cwes, undefined);
});

test("rejected CVEs are withdrawn at lastModified; the KEV copy fields become kev", () => {
  const parsed = parse(
    page([
      cve({ id: "CVE-2024-0002", vulnStatus: "Rejected", lastModified: "2024-03-01T00:00:00" }),
      cve({
        id: "CVE-2024-0003",
        cisaExploitAdd: "2024-05-01",
        cisaActionDue: "2024-05-22",
        cisaRequiredAction: "Apply updates.",
        cisaVulnerabilityName: "Example Flaw",
      }),
      cve({ id: "CVE-2024-0004", cisaExploitAdd: "yesterday" }),
    ]),
  );
  assert.deepEqual(parsed.vulnerabilities[0].withdrawn, {
    time: "2024-03-01T00:00:00.000Z",
    reason: "rejected by the NVD",
  });
  assert.deepEqual(parsed.vulnerabilities[1].kev, {
    dateAdded: "2024-05-01",
    dueDate: "2024-05-22",
    vulnerabilityName: "Example Flaw",
  });
  assert.equal(parsed.vulnerabilities[2].kev, undefined);
});

test("times without a zone are UTC; times with one are converted", () => {
  const parsed = parse(
    page([cve({ published: "2024-01-02T03:04:05", lastModified: "2024-01-02T05:04:05.1+02:00" })]),
  );
  assert.equal(parsed.vulnerabilities[0].published, "2024-01-02T03:04:05.000Z");
  assert.equal(parsed.vulnerabilities[0].modified, "2024-01-02T03:04:05.100Z");
});

test("a bad CVE in the middle is rejected by index and the rest import", () => {
  const parsed = parse(
    page([
      cve({ id: "CVE-2024-0001" }),
      cve({ id: "CVE-2024-0002" }),
      cve({ id: "CVE-24-1" }),
      { notCve: true },
      cve({ id: "CVE-2024-0005", lastModified: "2024-02-30T00:00:00" }),
      cve({ id: "CVE-2024-0006", published: "soon" }),
      cve({ id: "CVE-2024-0007" }),
    ]),
  );
  assert.deepEqual(
    parsed.vulnerabilities.map((record) => record.id),
    ["CVE-2024-0001", "CVE-2024-0002", "CVE-2024-0007"],
  );
  assert.deepEqual(
    parsed.rejected.map((rejection) => [rejection.file, rejection.position]),
    [
      ["nvd.json", "vulnerabilities[2]"],
      ["nvd.json", "vulnerabilities[3]"],
      ["nvd.json", "vulnerabilities[4]"],
      ["nvd.json", "vulnerabilities[5]"],
    ],
  );
  assert.match(parsed.rejected[0].reason, /not a CVE id/);
  assert.match(parsed.rejected[1].reason, /no cve object/);
  assert.match(parsed.rejected[2].reason, /lastModified/);
  assert.match(parsed.rejected[3].reason, /published/);
});

test("an array of pages is read page by page; a wrong page is refused at its index", () => {
  const parsed = parse([
    page([cve({ id: "CVE-2024-0001" })]),
    { ...page([cve({ id: "CVE-2024-0002" })]), version: "1.0" },
    page([cve({ id: "CVE-2024-0003" }), cve({ id: "bad" })]),
  ]);
  assert.deepEqual(
    parsed.vulnerabilities.map((record) => record.id),
    ["CVE-2024-0001", "CVE-2024-0003"],
  );
  assert.deepEqual(
    parsed.rejected.map((rejection) => rejection.position),
    ["[1]", "[2].vulnerabilities[1]"],
  );
});

test("bad JSON, a wrong format and a page without a list are refused as the document", () => {
  const badJson = parseNvd({ file: "x.json", text: "{not json" });
  assert.equal(badJson.rejected.length, 1);
  assert.equal(badJson.rejected[0].position, "document");
  assert.match(badJson.rejected[0].reason, /not JSON/);
  for (const document of [
    { ...page([cve()]), format: "NVD_CPE" },
    { ...page([cve()]), version: "2.1" },
    cve(),
    null,
    "text",
  ]) {
    const parsed = parse(document);
    assert.deepEqual(parsed.vulnerabilities, []);
    assert.deepEqual(
      parsed.rejected.map((rejection) => rejection.position),
      ["document"],
    );
    assert.match(parsed.rejected[0].reason, /not an NVD CVE API 2.0 page/);
  }
  const noList = parse({ ...page([]), vulnerabilities: {} });
  assert.deepEqual(
    noList.rejected.map((rejection) => rejection.position),
    ["document"],
  );
});
