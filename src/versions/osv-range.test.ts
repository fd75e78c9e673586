import assert from "node:assert/strict";
import { test } from "node:test";
import {
  gitRangeRefusal,
  isAffected,
  isInRange,
  type OsvAffected,
  type OsvEvent,
} from "./osv-range.ts";
import { readJsonTree, sharedDataDir } from "./testdata/shared-data.ts";

const semver = (...events: OsvEvent[]): OsvAffected => ({
  package: { ecosystem: "npm", name: "example" },
  ranges: [{ type: "SEMVER", events }],
});

/** Asserts the answer for each version: true, false, or an error matching a pattern. */
function expect(affected: OsvAffected, answers: Record<string, boolean | RegExp>) {
  for (const [version, answer] of Object.entries(answers)) {
    const result = isAffected(version, affected);
    if (answer instanceof RegExp) assert.match(result.error ?? "(no error)", answer, version);
    else assert.deepEqual(result, { value: answer }, version);
  }
}

test("introduced 0 opens at the start of all versions; fixed closes before itself", () => {
  expect(semver({ introduced: "0" }, { fixed: "1.2.3" }), {
    "0.0.0-0": true,
    "1.2.2": true,
    "1.2.3-rc.1": true,
    "1.2.3": false,
    "1.2.3+build": false,
    "1.2.4": false,
  });
});

test("several introduced/fixed pairs are several intervals, whatever the order of the events", () => {
  const events: OsvEvent[] = [
    { fixed: "1.5.0" },
    { introduced: "2.0.0" },
    { introduced: "1.0.0" },
    { fixed: "2.1.0" },
  ];
  expect(semver(...events), {
    "0.9.0": false,
    "1.0.0": true,
    "1.4.9": true,
    "1.5.0": false,
    "1.9.9": false,
    "2.0.0": true,
    "2.1.0": false,
    "3.0.0": false,
  });
});

test("last_affected closes after itself; no fix leaves the range open", () => {
  expect(semver({ introduced: "1.0.0" }, { last_affected: "1.4.0" }), {
    "0.9.0": false,
    "1.4.0": true,
    "1.4.1-0": false,
    "1.4.1": false,
  });
  expect(semver({ introduced: "1.0.0" }), { "0.1.0": false, "1.0.0": true, "99.0.0": true });
});

test("limit caps the range, and * is no limit", () => {
  const capped = semver({ introduced: "0" }, { introduced: "3.0.0" }, { limit: "2.0.0" });
  expect(capped, { "1.0.0": true, "2.0.0": false, "3.1.0": false });
  expect(semver({ introduced: "1.0.0" }, { limit: "*" }), { "0.1.0": false, "5.0.0": true });
});

test("introduced 0 with fixed 0 (a false positive, as Chainguard exports one) affects nothing", () => {
  const none: OsvAffected = {
    package: { ecosystem: "Wolfi", name: "glibc" },
    ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "0" }] }],
  };
  expect(none, { "0": false, "0_alpha": false, "2.40-r1": false });
});

test("ECOSYSTEM ranges follow the package's ecosystem", () => {
  const range = (ecosystem: string, fixed: string): OsvAffected => ({
    package: { ecosystem, name: "p" },
    ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed }] }],
  });
  expect(range("Wolfi", "1.3-r1"), {
    "1.3_rc1-r5": true,
    "1.3-r0": true,
    "1.3-r1": false,
    "1.3.1-r0": false,
  });
  expect(range("Debian:12", "2.36-9+deb12u4"), {
    "2.36-9+deb12u3": true,
    "2.36-9+deb12u10": false,
  });
  expect(range("PyPI", "3.1.4"), {
    "3.1.4rc1": true,
    "3.1.4.dev0": true,
    "3.1.4": false,
    "3.1.4.post1": false,
  });
  expect(range("Maven", "2.14.0"), {
    "2.14.0-RC1": true,
    "2.14.0-SNAPSHOT": true,
    "2.14": false,
    "2.14.0.1": false,
  });
  expect(range("Go", "0.17.0"), { "v0.16.0": true, "0.16.0": true, "v0.17.0": false });
  expect(range("Alpine:v3.20", "1.36.1-r29"), { "1.36.1-r28": true, "1.36.1-r29": false });
});

test("versions lists match by the ecosystem's equality, or by text without rules", () => {
  const listed = (ecosystem: string): OsvAffected => ({
    package: { ecosystem, name: "p" },
    versions: ["1.0", "2.0.0-beta"],
  });
  expect(listed("PyPI"), { "1.0.0": true, "1.0": true, "1.0.post1": false, "2.0.0b0": true });
  expect(listed("DHI"), { "1.0": true, "1.0.0": false });
});

test("a GIT range is refused unless another range or the versions list says affected", () => {
  const git: OsvAffected = {
    package: { ecosystem: "PyPI", name: "p" },
    ranges: [
      {
        type: "GIT",
        repo: "https://example.invalid/p.git",
        events: [{ introduced: "0" }, { fixed: "abc123" }],
      },
      { type: "ECOSYSTEM", events: [{ introduced: "1.0" }, { fixed: "1.1" }] },
    ],
    versions: ["0.9"],
  };
  expect(git, { "1.0.5": true, "0.9": true, "0.8": /commit graph/, "1.2": /commit graph/ });
  assert.match(gitRangeRefusal, /GIT ranges need a commit graph, which Lading does not have/);
  assert.match(
    isInRange("1.0", git.ranges?.[0] ?? { type: "", events: [] }).error ?? "",
    /commit graph/,
  );
});

test("bad input is refused with the reason", () => {
  expect(semver({ introduced: "0" }, { fixed: "1.0" }), {
    "0.1.0": /fixed "1\.0" is not a valid semver version/,
  });
  expect(semver({ introduced: "0" }), {
    "not-a-version": /version "not-a-version" is not a valid semver/,
  });
  expect(semver({ introduced: "0", fixed: "1.0.0" }), { "0.1.0": /exactly one of/ });
  expect(
    { ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }] }] },
    { "1": /needs the package's ecosystem/ },
  );
  expect(
    { package: { ecosystem: "Hackage" }, ranges: [{ type: "ECOSYSTEM", events: [] }] },
    { "1": /no version rules for OSV ecosystem "Hackage"/ },
  );
  expect(
    { package: { ecosystem: "npm" }, ranges: [{ type: "DATE", events: [] }] },
    { "1": /unknown range type "DATE"/ },
  );
  expect({ package: { ecosystem: "npm" } }, { "1.0.0": /neither ranges nor versions/ });
});

const osvDir = sharedDataDir("osv");
const records = osvDir ? readJsonTree(osvDir) : new Map<string, unknown>();
const noData = osvDir ? false : "shared/data/osv is not beside this checkout";

function entries(path: string): OsvAffected[] {
  const record = records.get(path) as { affected?: OsvAffected[] } | undefined;
  assert.ok(record, `${path} is in the sample`);
  return record.affected ?? [];
}

test("every range of the 115 real OSV records evaluates, and its events fall where they should", {
  skip: noData,
}, () => {
  assert.equal(records.size, 115);
  let events = 0;
  for (const [path, record] of records) {
    for (const affected of (record as { affected?: OsvAffected[] }).affected ?? []) {
      for (const range of affected.ranges ?? []) {
        for (const event of range.events) {
          const [kind, version] = Object.entries(event)[0] as [keyof OsvEvent, string];
          if (version === "0") continue;
          events++;
          const inside = isInRange(version, range, affected.package?.ecosystem);
          assert.equal(inside.error, undefined, `${path}: ${inside.error}`);
          const expected = kind === "introduced" || kind === "last_affected";
          assert.equal(inside.value, expected, `${path}: ${kind} ${version}`);
        }
      }
    }
  }
  assert.ok(events > 250, `${events} events`);
});

test("real records answer as their advisories say", { skip: noData }, () => {
  const check = (path: string, answers: Record<string, boolean>, name?: string) => {
    const chosen = entries(path).filter((a) => name === undefined || a.package?.name === name);
    assert.ok(chosen.length > 0);
    for (const affected of chosen) expect(affected, answers);
  };
  check("ghsa/GHSA-grv7-fg5c-xmjg.json", {
    "2.3.2": true,
    "3.0.2": true,
    "3.0.3-alpha.0": true,
    "3.0.3": false,
  });
  check("ghsa/GHSA-h75v-3vvj-5mfj.json", {
    "2.11.3": true,
    "3.1.3": true,
    "3.1.4rc1": true,
    "3.1.4": false,
  });
  check("ghsa/GHSA-78wr-2p64-hpwj.json", {
    "1.4": false,
    "2.0": true,
    "2.13.0": true,
    "2.14.0": false,
  });
  check(
    "go/GO-2023-2102.json",
    {
      "v1.20.9": true,
      "1.20.10": false,
      "v1.21.0-rc.1": true,
      "v1.21.2": true,
      "v1.21.3": false,
      "v1.22.0": false,
    },
    "stdlib",
  );
  check("go/GO-2022-0209.json", {
    "v0.0.0-20190308221718-c2843e01d9a2": true,
    "v0.0.0-20190320223903-b7391e95e576": false,
    "v0.1.0": false,
  });
  check("dhi/spark/CVE-2019-10099.json", {
    "1.0.2": true,
    "1.6.3": true,
    "1.6.4": false,
    "2.0.2": true,
    "2.0.3": false,
    "2.3.1": true,
    "2.3.2": false,
  });
  check("dhi/spark/CVE-2020-27218.json", { "2.4.8": true, "3.0.3": true, "3.0.2": false });
  check("dhi/spark/CVE-2022-31777.json", {
    "3.2.1": true,
    "3.2.2": false,
    "3.3.0": true,
    "3.3.1": false,
  });
  check("dhi/opensearch/CVE-2023-31419.json", {
    "1.3.13": true,
    "1.3.14": false,
    "2.11.0": true,
    "2.11.1": false,
  });
});

test("a range whose fix sorts before its introduction reopens, as the sorted evaluation says", {
  skip: noData,
}, () => {
  // The record pairs introduced 2.10.0 with fixed 2.10.0-rc2, which precedes it; OSV sorts
  // events by version before evaluating, so the 2.10 line stays open. Lading follows the spec.
  const [affected] = entries("dhi/traefik/CVE-2023-29013.json");
  expect(affected, {
    "2.9.9": true,
    "2.9.10": false,
    "2.10.0-rc1": false,
    "2.10.0": true,
    "3.0.0": true,
  });
});
