import assert from "node:assert/strict";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { createAdvisoryYamlParser, parseAdvisoryYaml } from "./advisory-yaml-parser.ts";
import { falsePositiveTypes, type ParsedFeed } from "./feed-records.ts";

const _fixtures = fileURLToPath(new URL("../../../test/fixtures/advisories/", import.meta.url));
const NOW = Date.parse("2025-06-01T00:00:00Z");
const parse = createAdvisoryYamlParser({ now: () => NOW });

/** A document of `package` with the given advisories YAML (list items, indented 2). */
const doc = (advisories: string, version = "2.0.2", name = "example") =>
  `schema-version: ${version}\npackage:\n  name: ${name}\nadvisories:\n${advisories}`;

const one = (events: string, aliases = "      - CVE-2024-1234\n", id = "CGA-2345-6789-cfgh") =>
  `  - id: ${id}\n    aliases:\n${aliases}    events:\n${events}`;

const event = (type: string, data = "", at = "2024-03-01T10:00:00Z") =>
  `      - timestamp: ${at}\n        type: ${type}\n${data ? `        data:\n${data}` : ""}`;

function only(feed: ParsedFeed) {
  assert.deepEqual(feed.rejected, []);
  assert.equal(feed.advisories.length, 1);
  return feed.advisories[0];
}

test("an advisory becomes one record keyed by its CGA id, in the wolfi namespace", () => {
  const text = doc(
    one(
      event("detection", "          type: manual\n"),
      "      - CVE-2024-1234\n      - GHSA-2345-6789-cfgh\n",
    ),
  );
  const feed = parse({ file: "example.advisories.yaml", text });
  assert.deepEqual(only(feed), {
    key: "CGA-2345-6789-cfgh",
    document: "example",
    advisoryId: "CGA-2345-6789-cfgh",
    artifactName: "example",
    artifactType: "apk",
    artifactArchitecture: "",
    componentName: "",
    componentType: "",
    componentLocation: "",
    aliases: ["CVE-2024-1234", "GHSA-2345-6789-cfgh"],
    events: [
      { timestamp: "2024-03-01T10:00:00.000Z", type: "detection", detection: { type: "manual" } },
    ],
    packageNamespace: "wolfi",
  });
  assert.deepEqual(feed.damagedDocuments, []);
  assert.deepEqual(feed.vulnerabilities, []);
});

test("every event kind and its data round-trips", () => {
  const scan = [
    "          type: scan/v1",
    "          data:",
    "            subpackageName: example-compat",
    '            componentID: "abc123"',
    "            componentName: golang.org/x/net",
    "            componentVersion: v0.17.0",
    "            componentType: go-module",
    "            componentLocation: /usr/bin/example",
    "            scanner: grype",
    "",
  ].join("\n");
  const events = [
    event("detection", "          type: manual\n", "2024-01-01T00:00:00Z"),
    event(
      "detection",
      "          type: nvdapi\n          data:\n            cpeSearched: cpe:2.3:a:*:x\n            cpeFound: cpe:2.3:a:x:x\n",
      "2024-01-02T00:00:00Z",
    ),
    event("detection", scan, "2024-01-03T00:00:00Z"),
    event("true-positive-determination", "          note: confirmed\n", "2024-01-04T00:00:00Z"),
    event("true-positive-determination", "", "2024-01-05T00:00:00Z"),
    event("fixed", "          fixed-version: 1.2.3-r1\n", "2024-01-06T00:00:00Z"),
    event(
      "false-positive-determination",
      "          type: inline-mitigations-exist\n          note: |\n            line one\n            see https://example.com/x\n",
      "2024-01-07T00:00:00Z",
    ),
    event("fix-not-planned", "          note: eol\n", "2024-01-08T00:00:00Z"),
    event("pending-upstream-fix", "          note: waiting\n", "2024-01-09T00:00:00Z"),
    event("analysis-not-planned", "          note: later\n", "2024-01-10T00:00:00Z"),
    event("fixed", "          fixed-version: 2:1.2.4-r0\n", "2024-01-11T00:00:00+02:00"),
  ].join("");
  const advisory = only(parse({ file: "-", text: doc(one(events)) }));
  assert.deepEqual(
    advisory.events,
    [
      { timestamp: "2024-01-01T00:00:00.000Z", type: "detection", detection: { type: "manual" } },
      {
        timestamp: "2024-01-02T00:00:00.000Z",
        type: "detection",
        detection: { type: "nvdapi", cpeSearched: "cpe:2.3:a:*:x", cpeFound: "cpe:2.3:a:x:x" },
      },
      {
        timestamp: "2024-01-03T00:00:00.000Z",
        type: "detection",
        detection: {
          type: "scan/v1",
          subpackageName: "example-compat",
          componentId: "abc123",
          componentName: "golang.org/x/net",
          componentVersion: "v0.17.0",
          componentType: "go-module",
          componentLocation: "/usr/bin/example",
          scanner: "grype",
        },
      },
      {
        timestamp: "2024-01-04T00:00:00.000Z",
        type: "true-positive-determination",
        note: "confirmed",
      },
      { timestamp: "2024-01-05T00:00:00.000Z", type: "true-positive-determination" },
      { timestamp: "2024-01-06T00:00:00.000Z", type: "fixed", fixedVersion: "1.2.3-r1" },
      {
        timestamp: "2024-01-07T00:00:00.000Z",
        type: "false-positive-determination",
        falsePositiveType: "inline-mitigations-exist",
        note: "line one\nsee https://example.com/x\n",
      },
      { timestamp: "2024-01-08T00:00:00.000Z", type: "fix-not-planned", note: "eol" },
      { timestamp: "2024-01-09T00:00:00.000Z", type: "pending-upstream-fix", note: "waiting" },
      // +02:00 is normalised to UTC: the 11th at midnight there is the 10th at 22:00.
      { timestamp: "2024-01-10T22:00:00.000Z", type: "fixed", fixedVersion: "2:1.2.4-r0" },
      { timestamp: "2024-01-10T00:00:00.000Z", type: "analysis-not-planned", note: "later" },
    ].sort((a, b) => a.timestamp.localeCompare(b.timestamp)),
  );
  assert.equal(advisory.componentName, "golang.org/x/net");
  assert.equal(advisory.componentType, "go-module");
  assert.equal(advisory.componentLocation, "/usr/bin/example");
});

test("every false-positive type is read; another type is refused", () => {
  for (const type of falsePositiveTypes) {
    const text = doc(one(event("false-positive-determination", `          type: ${type}\n`)));
    assert.equal(only(parse({ file: "-", text })).events[0].falsePositiveType, type);
  }
  const text = doc(one(event("false-positive-determination", "          type: not-a-type\n")));
  assert.match(parse({ file: "-", text }).rejected[0].reason, /type "not-a-type" is not one of/);
});

test("events are sorted by time, ties keeping the file's order; the latest scan names the component", () => {
  const scan = (name: string) =>
    `          type: scan/v1\n          data:\n            componentName: ${name}\n            componentType: npm\n            componentLocation: /${name}\n`;
  const events = [
    event("fixed", "          fixed-version: 1.0-r1\n", "2024-05-01T00:00:00Z"),
    event("detection", scan("late"), "2024-04-01T00:00:00Z"),
    event("detection", scan("early"), "2024-01-01T00:00:00Z"),
    event("fix-not-planned", "          note: a\n", "2024-04-01T00:00:00Z"),
  ].join("");
  const advisory = only(parse({ file: "-", text: doc(one(events)) }));
  assert.deepEqual(
    advisory.events.map((e) => e.type),
    ["detection", "detection", "fix-not-planned", "fixed"],
  );
  assert.equal(advisory.componentName, "late");
  assert.equal(advisory.componentLocation, "/late");
});

test("schema-versions 2, 2.0.1 and 2.0.2 are read; newer ones and model 1 are refused whole", () => {
  for (const version of ["2", "2.0.1", "2.0.2", '"2"']) {
    assert.deepEqual(
      parse({ file: "-", text: doc(one(event("detection", "          type: manual\n")), version) })
        .rejected,
      [],
    );
  }
  const refused = (version: string) => {
    const feed = parse({
      file: "x.yaml",
      text: doc(one(event("detection", "          type: manual\n")), version),
    });
    assert.equal(feed.advisories.length, 0, version);
    assert.deepEqual(feed.damagedDocuments, ["example"]);
    assert.equal(feed.rejected.length, 1);
    assert.equal(feed.rejected[0].position, "schema-version (line 1)");
    return feed.rejected[0].reason;
  };
  assert.equal(refused("3"), "schema-version 3 is newer than this Lading reads (2, 2.0.1, 2.0.2)");
  assert.equal(
    refused("2.0.3"),
    "schema-version 2.0.3 is newer than this Lading reads (2, 2.0.1, 2.0.2)",
  );
  assert.equal(
    refused("2.1"),
    "schema-version 2.1 is newer than this Lading reads (2, 2.0.1, 2.0.2)",
  );
  assert.equal(
    refused("1"),
    "schema-version 1 is an older model than this Lading reads (2, 2.0.1, 2.0.2)",
  );
  assert.equal(refused("two"), 'schema-version "two" is not MODEL.REVISION.ADDITION');
});

test("pending-upstream-fix needs 2.0.1 and scan/v1 needs 2.0.2: in an older document the advisory is refused", () => {
  const pending = one(event("pending-upstream-fix", "          note: upstream\n"));
  assert.match(
    parse({ file: "-", text: doc(pending, "2") }).rejected[0].reason,
    /needs schema-version 2\.0\.1 or newer; the document is 2$/,
  );
  assert.deepEqual(parse({ file: "-", text: doc(pending, "2.0.1") }).rejected, []);
  const scan = one(
    event("detection", "          type: scan/v1\n          data:\n            componentName: x\n"),
  );
  assert.match(
    parse({ file: "-", text: doc(scan, "2.0.1") }).rejected[0].reason,
    /scan\/v1 needs schema-version 2\.0\.2 or newer; the document is 2\.0\.1$/,
  );
});

test("the flat detection form (fields beside type) is refused: they belong under data.data", () => {
  const good = one(event("detection", "          type: manual\n"));
  const flat = [
    ["scan/v1", "          componentName: x\n          componentType: npm\n"],
    ["nvdapi", "          cpeSearched: cpe:2.3:a:*:x\n          cpeFound: cpe:2.3:a:x:x\n"],
  ];
  for (const [kind, fields] of flat) {
    const bad = one(
      event("detection", `          type: ${kind}\n${fields}`),
      "      - CVE-2024-1234\n",
      "CGA-3456-789c-fghj",
    );
    const feed = parse({ file: "example.advisories.yaml", text: doc(`${good}${bad}`) });
    assert.equal(feed.advisories.length, 1, kind);
    assert.deepEqual(
      feed.rejected.map((r) => [r.position, r.reason]),
      [
        [
          "advisories[1].events[0] (line 17)",
          `CGA-3456-789c-fghj: detection: ${kind} detection data belongs under data.data`,
        ],
      ],
      kind,
    );
  }
});

test("a bad advisory is refused with its line while the others are kept", () => {
  const good = one(event("detection", "          type: manual\n"));
  const cases: [string, RegExp, string][] = [
    [
      one(
        event("detection", "          type: manual\n"),
        "      - CVE-2024-1\n",
        "CGA-aaaa-2345-6789",
      ),
      /id "CGA-aaaa-2345-6789" is not a CGA id/,
      "advisories[1] (line 13)",
    ],
    [
      one(
        event("detection", "          type: manual\n"),
        "      - CVE-2024-ABCD\n",
        "CGA-3456-789c-fghj",
      ),
      /alias "CVE-2024-ABCD" is not a CVE, GHSA or GO id/,
      "advisories[1] (line 13)",
    ],
    [
      one(
        event("detection", "          type: manual\n"),
        "      - GHSA-aaaa-bbbb-cccc\n",
        "CGA-3456-789c-fghj",
      ),
      /alias "GHSA-aaaa-bbbb-cccc"/,
      "advisories[1] (line 13)",
    ],
    [
      one(
        event("detection", "          type: manual\n"),
        "      - CGA-3456-789c-fghj\n",
        "CGA-3456-789c-fghj",
      ),
      /is not a CVE, GHSA or GO id/,
      "advisories[1] (line 13)",
    ],
    [
      one(
        event("detection", "          type: manual\n"),
        "      - CVE-2024-1234\n      - CVE-2024-1234\n",
        "CGA-3456-789c-fghj",
      ),
      /aliases repeat/,
      "advisories[1] (line 13)",
    ],
    [
      one("", "      - CVE-2024-1234\n", "CGA-3456-789c-fghj"),
      /needs at least one event/,
      "advisories[1] (line 13)",
    ],
    [
      one(event("reopened"), "      - CVE-2024-1234\n", "CGA-3456-789c-fghj"),
      /unknown event type "reopened"/,
      "advisories[1].events[0] (line 17)",
    ],
    [
      one(event("patched"), "      - CVE-2024-1234\n", "CGA-3456-789c-fghj"),
      /unknown event type "patched"/,
      "advisories[1].events[0] (line 17)",
    ],
    [
      one(event("pending-upstream-fix"), "      - CVE-2024-1234\n", "CGA-3456-789c-fghj"),
      /pending-upstream-fix: note is required/,
      "advisories[1].events[0] (line 17)",
    ],
    [
      one(
        event("fixed", "          fixed-version: not a version\n"),
        "      - CVE-2024-1234\n",
        "CGA-3456-789c-fghj",
      ),
      /fixed-version "not a version" is not an APK version/,
      "advisories[1].events[0] (line 17)",
    ],
    [
      one(event("fixed"), "      - CVE-2024-1234\n", "CGA-3456-789c-fghj"),
      /fixed-version is missing/,
      "advisories[1].events[0] (line 17)",
    ],
    [
      one(
        event("detection", "          type: manual\n", "2024-13-01T00:00:00Z"),
        "      - CVE-2024-1234\n",
        "CGA-3456-789c-fghj",
      ),
      /not a valid date/,
      "advisories[1].events[0] (line 17)",
    ],
    [
      one(
        event("detection", "          type: manual\n", "2024-01-01"),
        "      - CVE-2024-1234\n",
        "CGA-3456-789c-fghj",
      ),
      /is not RFC 3339/,
      "advisories[1].events[0] (line 17)",
    ],
    [
      one(
        event("detection", "          type: nvdapi\n"),
        "      - CVE-2024-1234\n",
        "CGA-3456-789c-fghj",
      ),
      /nvdapi detection needs cpeSearched and cpeFound/,
      "advisories[1].events[0] (line 17)",
    ],
    [
      one(
        event(
          "detection",
          "          type: nvdapi\n          data:\n            cpeFound: cpe:2.3:a:x:x\n",
        ),
        "      - CVE-2024-1234\n",
        "CGA-3456-789c-fghj",
      ),
      /nvdapi detection needs cpeSearched and cpeFound/,
      "advisories[1].events[0] (line 17)",
    ],
    [
      one(
        event(
          "detection",
          "          type: scan/v1\n          data:\n            componentType: npm\n",
        ),
        "      - CVE-2024-1234\n",
        "CGA-3456-789c-fghj",
      ),
      /scan\/v1 detection needs componentName/,
      "advisories[1].events[0] (line 17)",
    ],
    [
      one(
        event("detection", "          type: scan/v1\n          data: [x]\n"),
        "      - CVE-2024-1234\n",
        "CGA-3456-789c-fghj",
      ),
      /scan\/v1 detection data\.data must be a mapping/,
      "advisories[1].events[0] (line 17)",
    ],
    [
      one(
        event("detection", "          type: magic\n"),
        "      - CVE-2024-1234\n",
        "CGA-3456-789c-fghj",
      ),
      /detection type "magic"/,
      "advisories[1].events[0] (line 17)",
    ],
    [good, /CGA-2345-6789-cfgh appears more than once/, "advisories[1] (line 13)"],
  ];
  for (const [bad, reason, position] of cases) {
    const feed = parse({ file: "example.advisories.yaml", text: doc(`${good}${bad}`) });
    assert.equal(feed.advisories.length, 1, String(reason));
    assert.equal(feed.rejected.length, 1, String(reason));
    assert.equal(feed.rejected[0].file, "example.advisories.yaml");
    assert.match(feed.rejected[0].reason, reason);
    assert.equal(feed.rejected[0].position, position, String(reason));
    assert.deepEqual(feed.damagedDocuments, ["example"]);
  }
});

test("a timestamp more than five minutes ahead of the clock is refused; within five minutes is accepted", () => {
  const at = (ms: number) => new Date(NOW + ms).toISOString();
  const text = (ms: number) => doc(one(event("detection", "          type: manual\n", at(ms))));
  assert.deepEqual(parse({ file: "-", text: text(4 * 60_000) }).rejected, []);
  assert.match(parse({ file: "-", text: text(6 * 60_000) }).rejected[0].reason, /is in the future/);
  // The default parser reads the real clock: a date in 2999 is always in the future.
  const far = doc(one(event("detection", "          type: manual\n", "2999-01-01T00:00:00Z")));
  assert.match(parseAdvisoryYaml({ file: "-", text: far }).rejected[0].reason, /in the future/);
});

test("YAML that does not parse is one rejection with its line, damaging the file", () => {
  const feed = parse({
    file: "a.yaml",
    text: "schema-version: 2\npackage:\n  name: x\nadvisories:\n  - id: [oops\n",
  });
  assert.equal(feed.rejected.length, 1);
  assert.match(feed.rejected[0].position, /^line [56]$/);
  assert.match(feed.rejected[0].reason, /^not valid YAML: /);
  assert.deepEqual(feed.damagedDocuments, ["a.yaml"]);
  assert.equal(
    parse({ file: "b", text: "- just\n- a list\n" }).rejected[0].reason,
    "the document is not a mapping",
  );
  assert.equal(
    parse({ file: "c", text: "schema-version: 2\nadvisories: []\n" }).rejected[0].reason,
    "package.name is missing",
  );
});

test("the file name must match package.name", () => {
  const feed = parse({
    file: "dir/other.advisories.yaml",
    text: doc(one(event("detection", "          type: manual\n"))),
  });
  assert.match(feed.rejected[0].reason, /does not match package.name "example"/);
  assert.equal(feed.advisories.length, 0);
});

test("work is bounded: oversized documents and alias bombs are refused", () => {
  const big = `# ${"x".repeat(16 * 1024 * 1024)}\n`;
  assert.match(parse({ file: "-", text: big }).rejected[0].reason, /larger than 16777216 bytes/);
  const lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"];
  for (let i = 1; i < 12; i++)
    lines.push(
      `a${i}: &a${i} [${Array(10)
        .fill(`*a${i - 1}`)
        .join(", ")}]`,
    );
  const feed = parse({ file: "-", text: `${lines.join("\n")}\n` });
  assert.equal(feed.rejected.length, 1);
  assert.match(feed.rejected[0].reason, /cannot be expanded/);
});

test("a namespace can be chosen", () => {
  const parser = createAdvisoryYamlParser({ namespace: "chainguard", now: () => NOW });
  const feed = parser({
    file: "-",
    text: doc(one(event("detection", "          type: manual\n"))),
  });
  assert.equal(only(feed).packageNamespace, "chainguard");
});
