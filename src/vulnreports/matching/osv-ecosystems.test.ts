import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { sharedDataDir } from "../../versions/testdata/shared-data.ts";
import { parseOsv } from "../../vulnerabilities/feeds/osv-parser.ts";
import { advisoryContent } from "../../vulnerabilities/import/advisory-row.ts";
import { type CandidateAdvisory, matchPackages } from "./matcher.ts";
import type { InstalledPackage } from "./package-target.ts";

const fixtures = new URL("../../../test/fixtures/osv/", import.meta.url);
const goRecords = sharedDataDir("osv/go");

/** Every advisory of real OSV records, as the import stores them. */
function candidates(...texts: string[]): CandidateAdvisory[] {
  return texts.flatMap((text, n) => {
    const feed = parseOsv({ file: `${n}.json`, text });
    assert.deepEqual(feed.rejected, [], "the record is read whole");
    return feed.advisories.map((record, i) => ({
      uid: `u${n}.${i}`,
      ...advisoryContent(record, `u${n}.${i}`, { parentUid: "p", source: "osv", author: "t" }),
      withdrawn_time: null,
    }));
  });
}

const fixture = (name: string) => readFileSync(new URL(name, fixtures), "utf8");

/** A package as the layer scan stores it: purl type, name as its ecosystem writes it. */
function pkg(ecosystem: string, purl: string, name: string, version: string): InstalledPackage {
  return { name, version, purl, ecosystem, license: "", origin: "" };
}

/** [reported id, package, fix state, fixed versions, note] of each match. */
function matched(packages: InstalledPackage[], advisories: CandidateAdvisory[]) {
  return matchPackages(packages, advisories, new Map(), { distro: "debian 12", architecture: "" })
    .map((m) => [
      m.vulnerability.id,
      `${m.pkg.name}@${m.pkg.version}`,
      m.fix.state,
      m.fix.versions,
      m.note ?? "",
    ])
    .sort();
}

describe("packages found in images are matched against OSV records of their ecosystem", () => {
  it("RubyGems: a gem inside the range is FIXED, below it or at the fix is not listed", () => {
    const advisories = candidates(fixture("GHSA-fppq-mj76-fpj2.json"));
    const gem = (v: string) => pkg("gem", `pkg:gem/fluentd@${v}`, "fluentd", v);
    assert.deepEqual(
      matched([gem("1.15.2"), gem("1.13.1"), gem("1.15.3"), gem("1.16.0")], advisories),
      [["CVE-2022-39379", "fluentd@1.15.2", "FIXED", ["1.15.3"], ""]],
    );
    // Gem::Version order: 1.15.3.pre is before 1.15.3, so still affected.
    assert.equal(matched([gem("1.15.3.pre")], advisories).length, 1);
  });

  it("crates.io: each branch of a two-branch SEMVER range", () => {
    const advisories = candidates(fixture("RUSTSEC-2021-0003.json"));
    const crate = (v: string) => pkg("cargo", `pkg:cargo/smallvec@${v}`, "smallvec", v);
    const found = matched(
      ["0.6.2", "0.6.13", "0.6.14", "1.0.0-alpha", "1.6.0", "1.6.1"].map(crate),
      advisories,
    ).map((m) => m[1]);
    assert.deepEqual(found, ["smallvec@0.6.13", "smallvec@1.6.0"]);
  });

  it("Maven: the artefact a jar names, against the GHSA record", () => {
    const advisories = candidates(fixture("GHSA-78wr-2p64-hpwj.json"));
    const jar = (v: string) =>
      pkg("maven", `pkg:maven/commons-io/commons-io@${v}`, "commons-io:commons-io", v);
    assert.deepEqual(matched([jar("2.11.0"), jar("2.14.0")], advisories), [
      ["CVE-2024-47554", "commons-io:commons-io@2.11.0", "FIXED", ["2.14.0"], ""],
    ]);
  });

  it("Go: modules and the standard library of a binary, against the Go vulnerability database", {
    skip: goRecords === undefined && "the shared OSV sample is not beside this checkout",
  }, () => {
    const advisories = candidates(readFileSync(join(goRecords ?? "", "GO-2023-2102.json"), "utf8"));
    // As the build info reader writes them: module versions with the v, stdlib without.
    const net = (v: string) =>
      pkg("golang", `pkg:golang/golang.org/x/net@${v}`, "golang.org/x/net", v);
    const stdlib = (v: string) => pkg("golang", `pkg:golang/stdlib@${v}`, "stdlib", v);
    assert.deepEqual(
      matched([net("v0.10.0"), net("v0.17.0"), stdlib("1.21.1"), stdlib("1.21.3")], advisories),
      [
        ["CVE-2023-39325", "golang.org/x/net@v0.10.0", "FIXED", ["0.17.0"], ""],
        ["CVE-2023-39325", "stdlib@1.21.1", "FIXED", ["1.21.3"], ""],
      ],
    );
  });
});
