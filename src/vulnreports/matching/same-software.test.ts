import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type CandidateAdvisory, matchPackages, type VulnerabilityMetadata } from "./matcher.ts";
import type { InstalledPackage } from "./package-target.ts";
import { upstreamVersion } from "./same-software.ts";

/** An advisory with one detection and a fix, under `id` with `aliases`. */
function advisory(
  id: string,
  name: string,
  namespace: string,
  aliases: string[],
  fixed: string,
): CandidateAdvisory {
  const events = [
    { uid: `${id}/0`, timestamp: "2024-01-01T00:00:00.000Z", type: "detection" },
    { uid: `${id}/1`, timestamp: "2024-01-02T00:00:00.000Z", type: "fixed", fixedVersion: fixed },
  ];
  return {
    uid: `${id}:${name}`,
    advisory_id: id,
    artifact_name: name,
    artifact_type: "library",
    artifact_architecture: "",
    package_namespace: namespace,
    aliases: JSON.stringify(aliases),
    events: JSON.stringify(events),
    latest_event_time: "2024-01-02T00:00:00.000Z",
    withdrawn_time: null,
  };
}

function pkg(purl: string, name: string, version: string, origin = ""): InstalledPackage {
  const ecosystem = purl.slice(4, purl.indexOf("/"));
  return { name, version, purl, ecosystem, license: "", origin };
}

const CVE = "CVE-2023-43804";
const debianRecord = advisory(
  "DEBIAN-CVE-2023-43804",
  "python-urllib3",
  "debian:12",
  [CVE],
  "1.26.12-1+deb12u2",
);
const ghsa = advisory("GHSA-v845-jxx5-vc9f", "urllib3", "pypi", [CVE], "1.26.17");
const deb = pkg(
  "pkg:deb/debian/python3-urllib3@1.26.12-1%2Bdeb12u1?arch=all&distro=debian-12&upstream=python-urllib3",
  "python3-urllib3",
  "1.26.12-1+deb12u1",
  "python-urllib3",
);
const distInfo = pkg("pkg:pypi/urllib3@1.26.12", "urllib3", "1.26.12");
const debian = { distro: "debian 12", architecture: "amd64" };
const none = new Map<string, VulnerabilityMetadata>();

const rows = (packages: InstalledPackage[], advisories: CandidateAdvisory[]) =>
  matchPackages(packages, advisories, none, debian).map((m) => [m.vulnerability.id, m.pkg.name]);

describe("the same software found as a deb and as a Python package", () => {
  it("is reported once for a vulnerability both match: the deb's finding, naming both", () => {
    const matches = matchPackages([distInfo, deb], [ghsa, debianRecord], none, debian);
    assert.equal(matches.length, 1);
    const [m] = matches;
    assert.equal(m.vulnerability.id, CVE);
    assert.equal(m.pkg.name, "python3-urllib3");
    assert.deepEqual(m.fix, { state: "FIXED", versions: ["1.26.12-1+deb12u2"] });
    assert.deepEqual(Object.keys(m.vulnerability.advisories).sort(), [
      "DEBIAN-CVE-2023-43804",
      "GHSA-v845-jxx5-vc9f",
    ]);
    assert.equal(m.vulnerability.advisories["GHSA-v845-jxx5-vc9f"].fixedVersion, "1.26.17");
    assert.match(m.note ?? "", /also installed as pkg:pypi\/urllib3@1\.26\.12/);
  });

  it("is matched by the package name without the distribution's prefix, any spelling", () => {
    // Debian's python3-pygments (source pygments) and the Pygments egg-info it installs.
    const pygments = pkg(
      "pkg:deb/debian/python3-pygments@2.14.0%2Bdfsg-1",
      "python3-pygments",
      "2.14.0+dfsg-1",
      "pygments",
    );
    const egg = pkg("pkg:pypi/pygments@2.14.0", "Pygments", "2.14.0");
    const apk = pkg("pkg:apk/alpine/py3-pyyaml@6.0.1-r0", "py3-pyyaml", "6.0.1-r0", "py3-yaml");
    const yaml = pkg("pkg:pypi/pyyaml@6.0.1", "PyYAML", "6.0.1");
    const gem = pkg("pkg:deb/debian/ruby-webrick@1.8.1-1", "ruby-webrick", "1.8.1-1");
    const spec = pkg("pkg:gem/webrick@1.8.1", "webrick", "1.8.1");
    const advisories = [
      advisory(
        "DEBIAN-CVE-2022-40896",
        "pygments",
        "debian:12",
        ["CVE-2022-40896"],
        "2.14.0+dfsg-2",
      ),
      advisory("GHSA-mrwq-x4v8-fh7p", "pygments", "pypi", ["CVE-2022-40896"], "2.15.0"),
      advisory("ALPINE-CVE-2020-14343", "py3-yaml", "alpine:v3.20", ["CVE-2020-14343"], "6.0.1-r1"),
      advisory("GHSA-8q59-q68h-6hv4", "pyyaml", "pypi", ["CVE-2020-14343"], "6.0.2"),
      advisory("DEBIAN-CVE-2024-47220", "ruby-webrick", "debian:12", ["CVE-2024-47220"], "1.8.1-2"),
      advisory("GHSA-6f62-3596-g6w7", "webrick", "rubygems", ["CVE-2024-47220"], "1.8.2"),
    ];
    assert.deepEqual(rows([egg, pygments, gem, spec], advisories), [
      ["CVE-2022-40896", "python3-pygments"],
      ["CVE-2024-47220", "ruby-webrick"],
    ]);
    const alpine = { distro: "alpine 3.20", architecture: "amd64" };
    const ms = matchPackages([apk, yaml], advisories, none, alpine);
    assert.deepEqual(
      ms.map((m) => m.pkg.name),
      ["py3-pyyaml"],
    );
  });

  it("a GHSA without a CVE joins the distribution's record that names it", () => {
    const bare = advisory("GHSA-aaaa-bbbb-cccc", "urllib3", "pypi", [], "1.26.17");
    const record = advisory(
      "DEBIAN-X-1",
      "python-urllib3",
      "debian:12",
      ["GHSA-aaaa-bbbb-cccc"],
      "1.26.12-2",
    );
    assert.deepEqual(rows([deb, distInfo], [bare, record]), [
      ["GHSA-aaaa-bbbb-cccc", "python3-urllib3"],
    ]);
  });
});

describe("what stays reported twice", () => {
  it("two different packages with the same CVE", () => {
    const requests = pkg("pkg:pypi/requests@2.28.1", "requests", "2.28.1");
    const alsoRequests = advisory("GHSA-r3qq-0000-0000", "requests", "pypi", [CVE], "2.31.0");
    assert.deepEqual(rows([deb, requests], [debianRecord, alsoRequests]), [
      [CVE, "python3-urllib3"],
      [CVE, "requests"],
    ]);
  });

  it("the same name at another version: a venv's own urllib3 beside Debian's", () => {
    const venv = pkg("pkg:pypi/urllib3@1.26.5", "urllib3", "1.26.5");
    assert.deepEqual(rows([deb, venv], [debianRecord, ghsa]), [
      [CVE, "python3-urllib3"],
      [CVE, "urllib3"],
    ]);
  });

  it("two records that report different vulnerabilities, though one lists the other's CVE", () => {
    // A Debian security advisory fixing two CVEs is reported under its first.
    const dsa = advisory(
      "DSA-5555-1",
      "python-urllib3",
      "debian:12",
      ["CVE-2023-11111", CVE],
      "1.26.12-1+deb12u2",
    );
    assert.deepEqual(rows([deb, distInfo], [dsa, ghsa]), [
      ["CVE-2023-11111", "python3-urllib3"],
      [CVE, "urllib3"],
    ]);
  });

  it("the Python package alone when the deb is not affected (the fix Debian backported is not known to PyPI)", () => {
    const patched = advisory(
      "DEBIAN-CVE-2023-43804",
      "python-urllib3",
      "debian:12",
      [CVE],
      "1.26.12-1+deb12u1",
    );
    assert.deepEqual(rows([deb, distInfo], [patched, ghsa]), [[CVE, "urllib3"]]);
  });
});

describe("a distribution version's upstream part", () => {
  const cases: [string, string][] = [
    ["1.26.12-1+deb12u1", "1.26.12"],
    ["2.14.0+dfsg-1", "2.14.0"],
    ["1:4.13+dfsg1-1+deb12u1", "4.13"],
    ["6.0-3+b2", "6.0"],
    ["1.0~rc1-2", "1.0"],
    ["2.0", "2.0"],
    ["1.26.18-r0", "1.26.18"],
    ["1.26.5-6.el9", "1.26.5"],
    ["2:1.2.3-1.fc40", "1.2.3"],
  ];
  for (const [version, upstream] of cases) {
    it(`${version} → ${upstream}`, () => assert.equal(upstreamVersion(version), upstream));
  }
});
