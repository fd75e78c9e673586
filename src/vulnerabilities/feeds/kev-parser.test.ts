import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sharedDataDir } from "../../versions/testdata/shared-data.ts";
import { parseKev } from "./kev-parser.ts";

const samples = sharedDataDir("vulnmeta");
const noSamples = samples ? false : "shared/data/vulnmeta is not beside this checkout";

function entry(fields: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    cveID: "CVE-2024-0001",
    vendorProject: "Example",
    product: "Widget",
    vulnerabilityName: "Example Widget Flaw",
    dateAdded: "2024-05-01",
    dueDate: "2024-05-22",
    knownRansomwareCampaignUse: "Known",
    cwes: ["CWE-79"],
    ...fields,
  };
}

const parse = (document: unknown) => parseKev({ file: "kev.json", text: JSON.stringify(document) });

test("the catalog excerpt gives its 3 entries, whatever count says", { skip: noSamples }, () => {
  const parsed = parseKev({
    file: "kev.json",
    text: readFileSync(join(samples ?? "", "cisa-kev-catalog-excerpt.json"), "utf8"),
  });
  assert.deepEqual(parsed.rejected, []);
  assert.deepEqual(parsed.advisories, []);
  assert.equal(parsed.vulnerabilities.length, 3);
  assert.deepEqual(parsed.vulnerabilities[0], {
    id: "CVE-2025-0108",
    kev: {
      dateAdded: "2025-02-18",
      dueDate: "2025-03-11",
      knownRansomwareCampaignUse: "Unknown",
      vulnerabilityName: "Palo Alto Networks PAN-OS Authentication Bypass Vulnerability",
    },
    cwes: ["CWE-306"],
  });
  assert.deepEqual(
    parsed.vulnerabilities.map((record) => [record.id, record.kev?.dateAdded, record.cwes]),
    [
      ["CVE-2025-0108", "2025-02-18", ["CWE-306"]],
      ["CVE-2024-53704", "2025-02-18", ["CWE-287"]],
      ["CVE-2024-57727", "2025-02-13", ["CWE-22"]],
    ],
  );
});

test("a bad entry in the middle is rejected by index and the rest import", () => {
  const parsed = parse({
    count: 99,
    vulnerabilities: [
      entry({ cveID: "CVE-2024-0001" }),
      entry({ cveID: "CVE-2024-1" }),
      entry({ cveID: "CVE-2024-0003", dateAdded: "2024/05/01" }),
      entry({ cveID: "CVE-2024-0004", dateAdded: "2024-02-30" }),
      entry({ cveID: "CVE-2024-0005", dueDate: "next week" }),
      entry({ cveID: "CVE-2024-0006", cwes: "CWE-79" }),
      "junk",
      entry({ cveID: "CVE-2024-0008" }),
    ],
  });
  assert.deepEqual(
    parsed.vulnerabilities.map((record) => record.id),
    ["CVE-2024-0001", "CVE-2024-0008"],
  );
  assert.deepEqual(
    parsed.rejected.map((rejection) => [rejection.file, rejection.position]),
    [1, 2, 3, 4, 5, 6].map((i) => ["kev.json", `vulnerabilities[${i}]`]),
  );
  assert.deepEqual(
    parsed.rejected.map((rejection) => rejection.reason.split(" ")[0]),
    ["cveID", "dateAdded", "dateAdded", "dueDate", "cwes", "not"],
  );
});

test("optional fields may be missing; only CWE-n ids are kept, once each", () => {
  const parsed = parse({
    vulnerabilities: [
      { cveID: "CVE-2024-0001", dateAdded: "2024-05-01" },
      entry({
        cveID: "CVE-2024-0002",
        dueDate: "",
        cwes: ["CWE-79", "NVD-CWE-noinfo", "CWE-79", 7],
      }),
      entry({ cveID: "CVE-2024-0003", cwes: [], vulnerabilityName: "  " }),
    ],
  });
  assert.deepEqual(parsed.rejected, []);
  assert.deepEqual(parsed.vulnerabilities, [
    { id: "CVE-2024-0001", kev: { dateAdded: "2024-05-01" } },
    {
      id: "CVE-2024-0002",
      kev: {
        dateAdded: "2024-05-01",
        knownRansomwareCampaignUse: "Known",
        vulnerabilityName: "Example Widget Flaw",
      },
      cwes: ["CWE-79"],
    },
    {
      id: "CVE-2024-0003",
      kev: { dateAdded: "2024-05-01", dueDate: "2024-05-22", knownRansomwareCampaignUse: "Known" },
    },
  ]);
});

test("bad JSON or no vulnerabilities list is refused as the document", () => {
  for (const text of ["{nope", JSON.stringify({ title: "x" }), JSON.stringify([entry()]), "null"]) {
    const parsed = parseKev({ file: "kev.json", text });
    assert.deepEqual(parsed.vulnerabilities, []);
    assert.deepEqual(
      parsed.rejected.map((rejection) => rejection.position),
      ["document"],
    );
  }
  assert.match(parseKev({ file: "kev.json", text: "{nope" }).rejected[0].reason, /not JSON/);
});
