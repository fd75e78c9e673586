import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { fixtureAdvisoryCount, fixtureSeed } from "../../../test/fixtures/advisories/generate.ts";
import { generateAdvisoryDocuments } from "../../../test/support/advisory-documents.ts";
import { isAdvisoryId } from "./advisory-id.ts";
import { parseAdvisoryYaml } from "./advisory-yaml-parser.ts";
import { falsePositiveTypes } from "./feed-records.ts";

const fixtures = fileURLToPath(new URL("../../../test/fixtures/advisories/", import.meta.url));

test("the fixture folder parses with no rejection: 400 advisories in 37 documents, every kind covered", () => {
  const files = readdirSync(fixtures).filter((f) => f.endsWith(".advisories.yaml"));
  assert.equal(files.length, 37);
  const kinds = new Map<string, number>();
  let advisories = 0;
  let outOfOrder = 0;
  for (const file of files) {
    const text = readFileSync(join(fixtures, file), "utf8");
    const feed = parseAdvisoryYaml({ file, text });
    assert.deepEqual(feed.rejected, [], file);
    advisories += feed.advisories.length;
    for (const advisory of feed.advisories) {
      assert.ok(isAdvisoryId(advisory.advisoryId));
      const firstInFile = text.indexOf(advisory.advisoryId);
      const stamps = [...text.slice(firstInFile).matchAll(/timestamp: (\S+)/g)].slice(
        0,
        advisory.events.length,
      );
      if (stamps.some((m, i) => i > 0 && m[1] < stamps[i - 1][1])) outOfOrder++;
      for (const e of advisory.events) {
        // The detection fields are read from the nested data.data of the documents.
        if (e.detection?.type === "scan/v1") {
          assert.ok(e.detection.componentName && e.detection.componentType, file);
          assert.ok(e.detection.scanner === "grype" && e.detection.componentId, file);
        }
        if (e.detection?.type === "nvdapi") {
          assert.match(e.detection.cpeSearched ?? "", /^cpe:2\.3:a:\*:/, file);
          assert.match(e.detection.cpeFound ?? "", /^cpe:2\.3:a:/, file);
        }
        const kind = [e.type, e.detection?.type, e.falsePositiveType].filter(Boolean).join(":");
        kinds.set(kind, (kinds.get(kind) ?? 0) + 1);
      }
    }
  }
  assert.equal(advisories, fixtureAdvisoryCount);
  assert.ok((kinds.get("detection:scan/v1") ?? 0) > 0 && (kinds.get("detection:nvdapi") ?? 0) > 0);
  assert.ok(outOfOrder > 0);
  assert.equal(kinds.size, 3 + 1 + 1 + 7 + 4 - 1); // detections, tp, fixed, 7 fp, fnp, pending, anp
  assert.deepEqual(
    [...kinds.keys()].sort(),
    [
      "analysis-not-planned",
      "detection:manual",
      "detection:nvdapi",
      "detection:scan/v1",
      ...falsePositiveTypes.map((t) => `false-positive-determination:${t}`),
      "fix-not-planned",
      "fixed",
      "pending-upstream-fix",
      "true-positive-determination",
    ].sort(),
  );
});

test("the committed fixtures are what the generator writes", () => {
  for (const { name, text } of generateAdvisoryDocuments(fixtureAdvisoryCount, fixtureSeed)) {
    assert.equal(readFileSync(join(fixtures, `${name}.advisories.yaml`), "utf8"), text, name);
  }
});

test("the bad folder gives exactly the expected rejections", () => {
  const dir = join(fixtures, "..", "advisories-bad");
  const got: string[] = [];
  for (const file of readdirSync(dir)
    .filter((f) => f.endsWith(".advisories.yaml"))
    .sort()) {
    const feed = parseAdvisoryYaml({ file, text: readFileSync(join(dir, file), "utf8") });
    assert.equal(feed.damagedDocuments.length, 1, file);
    for (const r of feed.rejected) got.push(`${r.file} | ${r.position} | ${r.reason}`);
  }
  const e = "CGA-5555-6666-7777";
  assert.deepEqual(got, [
    `bad-alias.advisories.yaml | advisories[1] (line 15) | ${e}: alias "CVE-24-1" is not a CVE, GHSA or GO id`,
    'bad-cga-id.advisories.yaml | advisories[1] (line 15) | id "CGA-aaaa-bbbb-cccc" is not a CGA id (CGA-xxxx-xxxx-xxxx)',
    "broken-yaml.advisories.yaml | line 14 | not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ]",
    "duplicate-id.advisories.yaml | advisories[1] (line 15) | CGA-2222-3333-4444 appears more than once in the document",
    `empty-events.advisories.yaml | advisories[1] (line 15) | ${e}: an advisory needs at least one event`,
    `future-timestamp.advisories.yaml | advisories[1].events[0] (line 19) | ${e}: timestamp 2999-02-01T00:00:00.000Z is in the future`,
    `missing-pending-note.advisories.yaml | advisories[1].events[0] (line 19) | ${e}: pending-upstream-fix: note is required`,
    `pending-too-old.advisories.yaml | advisories[1].events[0] (line 19) | ${e}: pending-upstream-fix: needs schema-version 2.0.1 or newer; the document is 2`,
    `scan-too-old.advisories.yaml | advisories[1].events[0] (line 19) | ${e}: detection: scan/v1 needs schema-version 2.0.2 or newer; the document is 2.0.1`,
    "schema-one.advisories.yaml | schema-version (line 1) | schema-version 1 is an older model than this Lading reads (2, 2.0.1, 2.0.2)",
    "schema-three.advisories.yaml | schema-version (line 1) | schema-version 3 is newer than this Lading reads (2, 2.0.1, 2.0.2)",
    `unknown-event-type.advisories.yaml | advisories[1].events[0] (line 19) | ${e}: unknown event type "reopened"`,
  ]);
});
