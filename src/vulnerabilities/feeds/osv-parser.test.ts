import assert from "node:assert/strict";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sharedDataDir } from "../../versions/testdata/shared-data.ts";
import { deriveAdvisoryId } from "./advisory-id.ts";
import type { ParsedFeed } from "./feed-records.ts";
import { unknownTime } from "./osv-affected.ts";
import { osvWithdrawnReason, parseOsv } from "./osv-parser.ts";

const osvDir = sharedDataDir("osv");

const record = (extra: Record<string, unknown> = {}) => ({
  schema_version: "1.7.0",
  id: "CGA-2345-6789-cfgh",
  modified: "2024-05-02T00:00:00Z",
  published: "2024-05-01T00:00:00Z",
  aliases: ["CVE-2024-1111"],
  upstream: ["GHSA-2345-6789-cfgh", "CVE-2024-1111"],
  affected: [
    {
      package: { ecosystem: "Wolfi", name: "curl", purl: "pkg:apk/wolfi/curl?arch=x86_64" },
      ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "8.5.0-r1" }] }],
    },
  ],
  ...extra,
});

const parse = (value: unknown): ParsedFeed =>
  parseOsv({ file: "r.json", text: JSON.stringify(value) });

const affected = (entry: Record<string, unknown>) =>
  parse(record({ id: "GHSA-2345-6789-cfgh", aliases: [], upstream: [], affected: [entry] }));

test("a record gives its metadata and one advisory per package", () => {
  const feed = parse(
    record({
      summary: "s",
      details: "d",
      references: [{ type: "FIX", url: "https://example.com/fix" }],
      severity: [
        { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" },
        { type: "Ubuntu", score: "medium" },
      ],
      database_specific: { cwe_ids: ["CWE-79"] },
    }),
  );
  assert.deepEqual(feed.rejected, []);
  assert.deepEqual(feed.vulnerabilities, [
    {
      id: "CGA-2345-6789-cfgh",
      summary: "s",
      details: "d",
      aliases: ["CVE-2024-1111", "GHSA-2345-6789-cfgh"],
      references: [{ type: "FIX", url: "https://example.com/fix" }],
      severities: [
        { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" },
        { type: "UBUNTU", score: "medium" },
      ],
      cwes: ["CWE-79"],
      published: "2024-05-01T00:00:00.000Z",
      modified: "2024-05-02T00:00:00.000Z",
    },
  ]);
  assert.deepEqual(feed.advisories, [
    {
      key: "osv:CGA-2345-6789-cfgh:Wolfi:curl:x86_64",
      document: "CGA-2345-6789-cfgh",
      advisoryId: "CGA-2345-6789-cfgh",
      artifactName: "curl",
      artifactType: "apk",
      artifactArchitecture: "x86_64",
      componentName: "",
      componentType: "",
      componentLocation: "",
      aliases: ["CVE-2024-1111", "GHSA-2345-6789-cfgh"],
      events: [
        { timestamp: "2024-05-01T00:00:00.000Z", type: "detection", detection: { type: "manual" } },
        { timestamp: "2024-05-02T00:00:00.000Z", type: "fixed", fixedVersion: "8.5.0-r1" },
      ],
      packageNamespace: "wolfi",
      affected: [
        {
          package: {
            ecosystem: "Wolfi",
            name: "curl",
            purl: "pkg:apk/wolfi/curl?arch=x86_64",
          },
          ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "8.5.0-r1" }] }],
        },
      ],
    },
  ]);
});

test("ranges are kept for matching; a versions list only when no range can be evaluated", () => {
  const ranged = affected({
    package: { ecosystem: "PyPI", name: "jinja2" },
    ranges: [
      {
        type: "ECOSYSTEM",
        events: [{ introduced: "2.0" }, { fixed: "2.11.3" }],
        database_specific: { x: 1 },
      },
    ],
    versions: ["2.0", "2.11.2"],
  });
  assert.deepEqual(ranged.advisories[0].affected, [
    {
      package: { ecosystem: "PyPI", name: "jinja2" },
      ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "2.0" }, { fixed: "2.11.3" }] }],
    },
  ]);
  const gitOnly = affected({
    package: { ecosystem: "PyPI", name: "jinja2" },
    ranges: [{ type: "GIT", repo: "https://example.com/r", events: [{ introduced: "abc" }] }],
    versions: ["2.0", "2.11.2"],
  });
  assert.deepEqual(gitOnly.advisories[0].affected?.[0].versions, ["2.0", "2.11.2"]);
  assert.deepEqual(gitOnly.advisories[0].affected?.[0].ranges, [
    { type: "GIT", repo: "https://example.com/r", events: [{ introduced: "abc" }] },
  ]);
});

test("a record without a CGA id gets a derived one, and its own id becomes the first alias", () => {
  const feed = affected({
    package: { ecosystem: "npm", name: "braces" },
    ranges: [{ type: "SEMVER", events: [{ introduced: "0" }] }],
  });
  const [advisory] = feed.advisories;
  assert.equal(advisory.key, "osv:GHSA-2345-6789-cfgh:npm:braces");
  assert.equal(advisory.advisoryId, deriveAdvisoryId("osv:GHSA-2345-6789-cfgh:npm:braces"));
  assert.deepEqual(advisory.aliases, ["GHSA-2345-6789-cfgh"]);
  assert.equal(advisory.artifactType, "library");
  assert.equal(advisory.packageNamespace, "npm");
  assert.deepEqual(
    advisory.events.map((e) => e.type),
    ["detection"],
  );
});

test("artifact types: apk for Wolfi, Chainguard and Alpine, image for DHI, library otherwise", () => {
  const type = (ecosystem: string) =>
    affected({ package: { ecosystem, name: "x" } }).advisories[0].artifactType;
  assert.deepEqual(
    ["Wolfi", "Chainguard", "Alpine:v3.20", "DHI", "PyPI", "Go", "Maven"].map(type),
    ["apk", "apk", "apk", "image", "library", "library", "library"],
  );
});

test("of several fixes the greatest by the ecosystem's order wins; across schemes the last listed", () => {
  const fixed = (entry: Record<string, unknown>) =>
    affected(entry).advisories[0].events.find((e) => e.type === "fixed")?.fixedVersion;
  const events = [
    { introduced: "0" },
    { fixed: "1.10.0" },
    { introduced: "2.0.0" },
    { fixed: "2.0.3" },
    { introduced: "1.9.0" },
    { fixed: "1.9.5" },
  ];
  assert.equal(
    fixed({ package: { ecosystem: "npm", name: "x" }, ranges: [{ type: "SEMVER", events }] }),
    "2.0.3",
  );
  // apk order puts 1.10 above 1.9, which text order would not.
  const apk = [{ introduced: "0" }, { fixed: "1.10-r0" }, { introduced: "0" }, { fixed: "1.9-r3" }];
  assert.equal(
    fixed({
      package: { ecosystem: "Wolfi", name: "x" },
      ranges: [{ type: "ECOSYSTEM", events: apk }],
    }),
    "1.10-r0",
  );
  const mixed = [
    { type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "3.0" }] },
    { type: "SEMVER", events: [{ introduced: "0" }, { fixed: "1.0.0" }] },
  ];
  assert.equal(fixed({ package: { ecosystem: "PyPI", name: "x" }, ranges: mixed }), "1.0.0");
  // A GIT fix is a commit, not a package version.
  const git = [
    {
      type: "GIT",
      repo: "https://example.com/x.git",
      events: [{ introduced: "0" }, { fixed: "abc123" }],
    },
  ];
  assert.equal(fixed({ package: { ecosystem: "PyPI", name: "x" }, ranges: git }), undefined);
});

test("Chainguard's false-positive export: introduced 0 and fixed 0, or database_specific.false_positive", () => {
  const fp = (entry: Record<string, unknown>) =>
    affected(entry).advisories[0].events.map((e) => [e.type, e.falsePositiveType, e.fixedVersion]);
  const expected = [
    ["detection", undefined, undefined],
    ["false-positive-determination", "vulnerability-record-analysis-contested", undefined],
  ];
  const zero = [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "0" }] }];
  assert.deepEqual(fp({ package: { ecosystem: "Wolfi", name: "x" }, ranges: zero }), expected);
  const flagged = {
    package: { ecosystem: "Wolfi", name: "x" },
    database_specific: { false_positive: true },
  };
  assert.deepEqual(fp(flagged), expected);
});

test("withdrawn records set withdrawn on the record and on every advisory", () => {
  const feed = parse(record({ withdrawn: "2024-06-01T00:00:00Z" }));
  const withdrawn = { time: "2024-06-01T00:00:00.000Z", reason: osvWithdrawnReason };
  assert.deepEqual(feed.vulnerabilities[0].withdrawn, withdrawn);
  assert.deepEqual(feed.advisories[0].withdrawn, withdrawn);
});

test("the zero date means no date; with neither date the events sit at the epoch", () => {
  const zero = "0001-01-01T00:00:00Z";
  const both = parse(record({ modified: zero, published: zero }));
  assert.equal(both.vulnerabilities[0].modified, undefined);
  assert.equal(both.vulnerabilities[0].published, undefined);
  assert.deepEqual(
    both.advisories[0].events.map((e) => e.timestamp),
    [unknownTime, unknownTime],
  );
  const published = parse(record({ modified: zero }));
  assert.deepEqual(
    published.advisories[0].events.map((e) => e.timestamp),
    ["2024-05-01T00:00:00.000Z", "2024-05-01T00:00:00.000Z"],
  );
  const modified = parse(record({ published: undefined }));
  assert.equal(modified.advisories[0].events[0].timestamp, "2024-05-02T00:00:00.000Z");
});

test("entries naming the same package are one advisory; a bad one spoils it", () => {
  const entry = (fixed: string) => ({
    package: { ecosystem: "npm", name: "x" },
    ranges: [{ type: "SEMVER", events: [{ introduced: "0" }, { fixed }] }],
  });
  const merged = parse(
    record({
      affected: [entry("1.0.0"), entry("2.0.0"), { package: { ecosystem: "npm", name: "y" } }],
    }),
  );
  assert.deepEqual(merged.rejected, []);
  assert.deepEqual(
    merged.advisories.map((a) => [a.artifactName, a.events.at(-1)?.fixedVersion]),
    [
      ["x", "2.0.0"],
      ["y", undefined],
    ],
  );
  const spoiled = parse(record({ affected: [entry("1.0.0"), entry("bad")] }));
  assert.equal(spoiled.advisories.length, 0);
  assert.equal(spoiled.rejected[0].position, "affected[1]");
});

test("ranges are validated: bad versions, unknown types and GIT without repo refuse the entry", () => {
  const cases: [unknown, RegExp][] = [
    [
      { type: "SEMVER", events: [{ introduced: "0" }, { fixed: "1.2" }] },
      /ranges\[0\]: fixed "1\.2" is not a semver version/,
    ],
    [
      { type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "1.0..0" }] },
      /fixed "1\.0\.\.0" is not a pep440 version/,
    ],
    [{ type: "RANGE", events: [{ introduced: "0" }] }, /unknown range type "RANGE"/],
    [{ type: "GIT", events: [{ introduced: "0" }] }, /a GIT range needs repo/],
    [
      { type: "SEMVER", events: [{ introduced: "0", fixed: "1.0.0" }] },
      /events\[0\] needs exactly one of/,
    ],
    [{ type: "SEMVER", events: "0" }, /events must be a list/],
  ];
  for (const [range, reason] of cases) {
    const feed = parse(
      record({
        affected: [
          { package: { ecosystem: "PyPI", name: "ok" } },
          { package: { ecosystem: "PyPI", name: "x" }, ranges: [range] },
        ],
      }),
    );
    assert.equal(feed.advisories.length, 1, String(reason));
    assert.equal(feed.vulnerabilities.length, 1);
    assert.equal(feed.rejected.length, 1);
    assert.match(feed.rejected[0].reason, reason);
    assert.equal(feed.rejected[0].position, "affected[1]");
    assert.deepEqual(feed.damagedDocuments, ["CGA-2345-6789-cfgh"]);
  }
  // No version rules for the ecosystem: the versions pass unchecked rather than refused.
  const unknown = { type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "whatever" }] };
  assert.deepEqual(
    parse(
      record({ affected: [{ package: { ecosystem: "Packagist", name: "x" }, ranges: [unknown] }] }),
    ).rejected,
    [],
  );
  // Go ECOSYSTEM versions are written without the v the go rules need.
  const go = { type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "1.21.3" }] };
  assert.deepEqual(
    parse(record({ affected: [{ package: { ecosystem: "Go", name: "stdlib" }, ranges: [go] }] }))
      .rejected,
    [],
  );
});

test("bad records and bad JSON are refused with a position; an array of records is read one by one", () => {
  const feed = parse([
    record(),
    { id: "X-1" },
    "nope",
    record({ id: "CGA-3456-789c-fghj", published: "yesterday" }),
  ]);
  assert.equal(feed.vulnerabilities.length, 1);
  assert.deepEqual(
    feed.rejected.map((r) => [r.position, r.reason]),
    [
      ["[1]", "X-1: modified is missing"],
      ["[2]", "an OSV record must be an object with an id"],
      ["[3]", 'CGA-3456-789c-fghj: published: timestamp "yesterday" is not RFC 3339'],
    ],
  );
  assert.deepEqual(feed.damagedDocuments, ["X-1", "r.json", "CGA-3456-789c-fghj"]);
  const nested = parse([record({ affected: [{ package: { ecosystem: "npm" } }] })]);
  assert.equal(nested.rejected[0].position, "[0].affected[0]");
  const broken = parseOsv({ file: "b.json", text: '{\n  "id": "X",\n  "modified": }\n' });
  assert.equal(broken.rejected[0].position, "line 3");
  assert.match(broken.rejected[0].reason, /^not valid JSON/);
  assert.deepEqual(broken.damagedDocuments, ["b.json"]);
});

test("a record without severity takes its affected packages', the highest per type", () => {
  const low = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N";
  const critical = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H";
  const entry = (name: string, severity: unknown) => ({
    package: { ecosystem: "PyPI", name },
    ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "2.0" }] }],
    severity,
  });
  const feed = parse(
    record({
      affected: [
        entry("a", [{ type: "CVSS_V3", score: low }]),
        entry("b", [
          { type: "CVSS_V3", score: critical },
          { type: "Ubuntu", score: "high" },
        ]),
        entry("c", [{ type: "CVSS_V3", score: "CVSS:3.1/AV:N" }]),
      ],
    }),
  );
  assert.deepEqual(feed.rejected, []);
  assert.deepEqual(feed.vulnerabilities[0].severities, [
    { type: "CVSS_V3", score: critical },
    { type: "UBUNTU", score: "high" },
  ]);
  // The record's own severity wins over its packages'.
  const own = parse(
    record({
      severity: [{ type: "CVSS_V3", score: low }],
      affected: [entry("a", [{ type: "CVSS_V3", score: critical }])],
    }),
  );
  assert.deepEqual(own.vulnerabilities[0].severities, [{ type: "CVSS_V3", score: low }]);
});

test("the DHI samples whose severity sits on the package get it", {
  skip: osvDir === undefined,
}, () => {
  const read = (id: string) =>
    parseOsv({
      file: `${id}.json`,
      text: readFileSync(join(osvDir as string, "dhi", "python", `${id}.json`), "utf8"),
    }).vulnerabilities[0].severities;
  assert.deepEqual(read("CVE-2020-15801"), [
    { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H" },
  ]);
  assert.deepEqual(read("CVE-2021-4189"), [
    { type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N" },
  ]);
});

test("every shared OSV sample parses with no rejection", { skip: osvDir === undefined }, () => {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith(".json")) files.push(path);
    }
  };
  walk(osvDir as string);
  assert.equal(files.length, 115);
  const all: ParsedFeed = {
    advisories: [],
    vulnerabilities: [],
    rejected: [],
    damagedDocuments: [],
  };
  for (const file of files) {
    const feed = parseOsv({ file, text: readFileSync(file, "utf8") });
    for (const key of ["advisories", "vulnerabilities", "rejected", "damagedDocuments"] as const) {
      (all[key] as unknown[]).push(...feed[key]);
    }
  }
  assert.deepEqual(all.rejected, []);
  assert.equal(all.vulnerabilities.length, 115);
  assert.equal(all.vulnerabilities.filter((v) => v.withdrawn).length, 17);
  assert.equal(all.advisories.length, 122);
  assert.equal(all.advisories.filter((a) => a.withdrawn).length, 17);
  assert.equal(new Set(all.advisories.map((a) => a.key)).size, 122);
  const count = (values: string[]) =>
    Object.fromEntries(
      [...new Set(values)].sort().map((v) => [v, values.filter((x) => x === v).length]),
    );
  assert.deepEqual(count(all.advisories.map((a) => a.packageNamespace)), {
    dhi: 81,
    go: 38,
    maven: 1,
    npm: 1,
    pypi: 1,
  });
  assert.deepEqual(count(all.advisories.flatMap((a) => a.events.map((e) => e.type))), {
    detection: 122,
    fixed: 107,
  });
  assert.equal(all.advisories.filter((a) => a.events[0].timestamp === unknownTime).length, 39);
  // One record has no affected list; the aspnetcore one lists its package twelve times.
  const ids = new Set(all.advisories.map((a) => a.document));
  assert.equal(all.vulnerabilities.filter((v) => !ids.has(v.id)).length, 1);
  assert.equal(all.advisories.filter((a) => a.document === "CVE-2024-35264").length, 1);
  const runc = all.advisories.find(
    (a) => a.key === "osv:GO-2025-4098:Go:github.com/opencontainers/runc",
  );
  assert.equal(runc?.events.at(-1)?.fixedVersion, "1.4.0-rc.3");
});
