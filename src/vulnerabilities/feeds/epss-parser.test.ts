import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sharedDataDir } from "../../versions/testdata/shared-data.ts";
import { parseEpss } from "./epss-parser.ts";

const samples = sharedDataDir("vulnmeta");
const noSamples = samples ? false : "shared/data/vulnmeta is not beside this checkout";
const comment = "#model_version:v2023.03.01,score_date:2025-02-20T00:00:00+0000";

test("the sample CSV gives its 5 rows dated by the comment line", { skip: noSamples }, () => {
  const parsed = parseEpss({
    file: "epss.csv",
    text: readFileSync(join(samples ?? "", "epss-scores-excerpt.csv"), "utf8"),
  });
  assert.deepEqual(parsed.rejected, []);
  assert.deepEqual(parsed.advisories, []);
  assert.equal(parsed.vulnerabilities.length, 5);
  assert.deepEqual(parsed.vulnerabilities[0], {
    id: "CVE-1999-0001",
    epss: { score: 0.00383, percentile: 0.73075, date: "2025-02-20" },
  });
  assert.deepEqual(parsed.vulnerabilities[4], {
    id: "CVE-1999-0005",
    epss: { score: 0.91963, percentile: 0.99214, date: "2025-02-20" },
  });
});

test("bad rows are rejected by line number and the rest import", () => {
  const text = [
    comment,
    "cve,epss,percentile",
    "CVE-2024-0001,0.1,0.5",
    "CVE-2024-0002,1.5,0.5",
    "CVE-2024-0003,0.1",
    "",
    "not-a-cve,0.1,0.5",
    "CVE-2024-0005,,0.5",
    "CVE-2024-0006,0.1,-0.2",
    "CVE-2024-0007,0.1,0.5,extra",
    "CVE-2024-0008,abc,0.5",
    "CVE-2024-0009,1,0\r",
    "CVE-2024-0010,0.00001,1.00000",
  ].join("\n");
  const parsed = parseEpss({ file: "epss.csv", text });
  assert.deepEqual(
    parsed.vulnerabilities.map((record) => [
      record.id,
      record.epss?.score,
      record.epss?.percentile,
    ]),
    [
      ["CVE-2024-0001", 0.1, 0.5],
      ["CVE-2024-0009", 1, 0],
      ["CVE-2024-0010", 0.00001, 1],
    ],
  );
  assert.deepEqual(
    parsed.rejected.map((rejection) => [rejection.file, rejection.position]),
    [4, 5, 7, 8, 9, 10, 11].map((line) => ["epss.csv", `line ${line}`]),
  );
  assert.deepEqual(
    parsed.rejected.map((rejection) => rejection.reason),
    [
      "epss is not a number from 0 to 1",
      "expected three columns: cve,epss,percentile",
      '"not-a-cve" is not a CVE id',
      "epss is not a number from 0 to 1",
      "percentile is not a number from 0 to 1",
      "expected three columns: cve,epss,percentile",
      "epss is not a number from 0 to 1",
    ],
  );
});

test("without the comment line the date comes from the file name, else the file is refused", () => {
  const body = "cve,epss,percentile\r\nCVE-2024-0001,0.1,0.5\r\n";
  const named = parseEpss({ file: "/data/epss_scores-2025-01-31.csv", text: body });
  assert.deepEqual(named.rejected, []);
  assert.deepEqual(named.vulnerabilities, [
    { id: "CVE-2024-0001", epss: { score: 0.1, percentile: 0.5, date: "2025-01-31" } },
  ]);
  const unnamed = parseEpss({ file: "-", text: body });
  assert.deepEqual(unnamed.vulnerabilities, []);
  assert.deepEqual(
    unnamed.rejected.map((rejection) => rejection.position),
    ["document"],
  );
  assert.match(unnamed.rejected[0].reason, /no score date/);
  // The comment's date wins over the file name's.
  const both = parseEpss({ file: "epss_scores-2025-01-31.csv", text: `${comment}\n${body}` });
  assert.equal(both.vulnerabilities[0].epss?.date, "2025-02-20");
});

test("a bad comment line or header refuses the file", () => {
  const cases: [string, string, RegExp][] = [
    ["#model_version:v2023.03.01\ncve,epss,percentile\n", "line 1", /no valid score_date/],
    [
      "#score_date:2025-13-01T00:00:00+0000\ncve,epss,percentile\n",
      "line 1",
      /no valid score_date/,
    ],
    [`${comment}\ncve,percentile,epss\nCVE-2024-0001,0.1,0.5\n`, "line 2", /expected the header/],
    [`${comment}\n`, "line 1", /expected the header/],
    ["", "document", /no score date/],
  ];
  for (const [text, position, reason] of cases) {
    const parsed = parseEpss({ file: "epss.csv", text });
    assert.deepEqual(parsed.vulnerabilities, []);
    assert.equal(parsed.rejected.length, 1, text);
    assert.equal(parsed.rejected[0].position, position, text);
    assert.match(parsed.rejected[0].reason, reason, text);
  }
});

test("a full-size file of 300,000 rows parses completely", () => {
  const rows = 300_000;
  const lines = [comment, "cve,epss,percentile"];
  for (let i = 0; i < rows; i++) {
    lines.push(
      `CVE-${2000 + (i % 25)}-${String(i).padStart(5, "0")},${(i % 1000) / 1000},${((i * 7) % 100000) / 100000}`,
    );
  }
  const parsed = parseEpss({ file: "epss_scores-2025-02-20.csv", text: `${lines.join("\n")}\n` });
  assert.deepEqual(parsed.rejected, []);
  assert.equal(parsed.vulnerabilities.length, rows);
  assert.deepEqual(parsed.vulnerabilities[rows - 1], {
    id: "CVE-2024-299999",
    epss: { score: 0.999, percentile: 0.99993, date: "2025-02-20" },
  });
});
