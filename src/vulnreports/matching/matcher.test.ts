import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { AdvisoryEventRecord } from "../../vulnerabilities/feeds/feed-records.ts";
import {
  type CandidateAdvisory,
  matchPackages,
  type VulnerabilityMatch,
  type VulnerabilityMetadata,
} from "./matcher.ts";
import type { InstalledPackage } from "./package-target.ts";
import { reportCounts } from "./report-counts.ts";
import { severityOf } from "./severity.ts";

let serial = 0;

function advisory(
  name: string,
  namespace: string,
  events: Partial<AdvisoryEventRecord>[],
  more: Partial<CandidateAdvisory> & { aliasList?: string[] } = {},
): CandidateAdvisory {
  serial++;
  const { aliasList = [`CVE-2024-${1000 + serial}`], ...rest } = more;
  const stored = events.map((e, i) => ({
    uid: `a${serial}/${i}`,
    timestamp: `2024-01-0${i + 1}T00:00:00.000Z`,
    type: "detection" as const,
    ...e,
  }));
  return {
    uid: `adv${serial}`,
    advisory_id: `CGA-aaaa-bbbb-${String(serial).padStart(4, "0")}`,
    artifact_name: name,
    artifact_type: namespace === "wolfi" || namespace.startsWith("alpine") ? "apk" : "library",
    artifact_architecture: "",
    package_namespace: namespace,
    aliases: JSON.stringify(aliasList),
    events: JSON.stringify(stored),
    latest_event_time: stored.at(-1)?.timestamp ?? "",
    withdrawn_time: null,
    ...rest,
  };
}

function pkg(purl: string, origin = ""): InstalledPackage {
  const at = purl.lastIndexOf("@");
  const path = purl.slice(0, at).replace(/\?.*$/, "");
  const name = path.slice(path.lastIndexOf("/") + 1);
  const ecosystem = purl.slice(4, purl.indexOf("/"));
  const version = purl.slice(at + 1).replace(/\?.*$/, "");
  return { name, version, purl, ecosystem, license: "MIT", origin };
}

const wolfi = { distro: "wolfi", architecture: "amd64" };
const none = new Map<string, VulnerabilityMetadata>();

/** Matches one package against advisories; returns [state, fixed versions] per match. */
function run(
  p: InstalledPackage,
  advisories: CandidateAdvisory[],
  image = wolfi,
): [string, string[]][] {
  return matchPackages([p], advisories, none, image).map((m) => [m.fix.state, m.fix.versions]);
}

const fixed = (v: string) => [{}, { type: "fixed" as const, fixedVersion: v }];

describe("matching: the latest event decides", () => {
  const openssl = pkg("pkg:apk/wolfi/openssl@3.3.2-r1");

  it("a fix above the installed version counts as FIXED with the fix", () => {
    assert.deepEqual(run(openssl, [advisory("openssl", "wolfi", fixed("3.3.2-r2"))]), [
      ["FIXED", ["3.3.2-r2"]],
    ]);
  });

  it("a fix exactly at the installed version clears it", () => {
    assert.deepEqual(run(openssl, [advisory("openssl", "wolfi", fixed("3.3.2-r1"))]), []);
  });

  it("a fix below the installed version clears it", () => {
    assert.deepEqual(run(openssl, [advisory("openssl", "wolfi", fixed("3.3.1-r9"))]), []);
  });

  it("a false positive never counts, even after a detection", () => {
    const a = advisory("openssl", "wolfi", [
      {},
      {
        type: "false-positive-determination",
        falsePositiveType: "component-vulnerability-mismatch",
      },
    ]);
    assert.deepEqual(run(openssl, [a]), []);
  });

  it("a false positive followed by a new detection counts again", () => {
    const a = advisory("openssl", "wolfi", [
      { type: "false-positive-determination" },
      { type: "detection" },
    ]);
    assert.deepEqual(run(openssl, [a]), [["NOT_FIXED", []]]);
  });

  it("fix-not-planned is WONT_FIX; pending, true positive and analysis-not-planned are NOT_FIXED", () => {
    assert.deepEqual(run(openssl, [advisory("openssl", "wolfi", [{ type: "fix-not-planned" }])]), [
      ["WONT_FIX", []],
    ]);
    for (const type of [
      "detection",
      "true-positive-determination",
      "pending-upstream-fix",
      "analysis-not-planned",
    ] as const) {
      assert.deepEqual(
        run(openssl, [advisory("openssl", "wolfi", [{ type }])]),
        [["NOT_FIXED", []]],
        type,
      );
    }
  });

  it("a fixed event after fix-not-planned wins (latest event)", () => {
    const a = advisory("openssl", "wolfi", [
      { type: "fix-not-planned" },
      { type: "fixed", fixedVersion: "3.3.2-r1" },
    ]);
    assert.deepEqual(run(openssl, [a]), []);
  });

  it("a patched event listing the installed version clears it, another version does not", () => {
    const listing = advisory("openssl", "wolfi", [
      { type: "patched", patchedVersions: ["3.3.2-r1"] },
    ]);
    const other = advisory("openssl", "wolfi", [
      { type: "patched", patchedVersions: ["3.3.1-r5"] },
    ]);
    assert.deepEqual(run(openssl, [listing]), []);
    assert.deepEqual(run(openssl, [other]), [["NOT_FIXED", []]]);
  });

  it("a withdrawn advisory never matches", () => {
    const a = advisory("openssl", "wolfi", [{}], { withdrawn_time: "2024-02-01T00:00:00.000Z" });
    assert.deepEqual(run(openssl, [a]), []);
  });

  it("an unreadable installed version counts as UNKNOWN with the reason", () => {
    const odd = pkg("pkg:apk/wolfi/openssl@not a version!");
    const [match] = matchPackages(
      [odd],
      [advisory("openssl", "wolfi", fixed("3.3.2-r2"))],
      none,
      wolfi,
    );
    assert.equal(match.fix.state, "UNKNOWN");
    assert.deepEqual(match.fix.versions, ["3.3.2-r2"]);
    assert.match(match.note ?? "", /invalid apk version "not a version!"/);
  });
});

describe("matching: version exactly at the fix, per ecosystem", () => {
  const cases: [string, string, string, string, string][] = [
    // purl (installed), advisory name, namespace, fix at the installed version, fix just above
    ["pkg:apk/wolfi/busybox@1.36.1-r7", "busybox", "wolfi", "1.36.1-r7", "1.36.1-r8"],
    [
      "pkg:deb/debian/libc6@2.36-9+deb12u4",
      "libc6",
      "debian:12",
      "2.36-9+deb12u4",
      "2.36-9+deb12u5",
    ],
    ["pkg:pypi/requests@2.31.0", "requests", "pypi", "2.31", "2.31.1"],
    ["pkg:npm/lodash@4.17.20", "lodash", "npm", "4.17.20", "4.17.21"],
    [
      "pkg:maven/org.apache.logging.log4j/log4j-core@2.14.1",
      "org.apache.logging.log4j:log4j-core",
      "maven",
      "2.14.1",
      "2.15.0",
    ],
    ["pkg:golang/golang.org/x/net@v0.17.0", "golang.org/x/net", "go", "v0.17.0", "v0.17.1"],
  ];
  for (const [purl, name, namespace, at, above] of cases) {
    it(`${purl}: fixed at ${at} clears it, fixed at ${above} is FIXED`, () => {
      const image = { distro: purl.includes("deb") ? "debian 12" : "wolfi", architecture: "amd64" };
      assert.deepEqual(run(pkg(purl), [advisory(name, namespace, fixed(at))], image), []);
      assert.deepEqual(run(pkg(purl), [advisory(name, namespace, fixed(above))], image), [
        ["FIXED", [above]],
      ]);
    });
  }

  it("PEP 440 and apk compare by their rules, not as text", () => {
    assert.deepEqual(
      run(pkg("pkg:pypi/django@4.2.10"), [advisory("django", "pypi", fixed("4.2.9"))]),
      [],
    );
    assert.deepEqual(
      run(pkg("pkg:apk/wolfi/curl@8.9.0-r0"), [advisory("curl", "wolfi", fixed("8.10.0-r0"))]),
      [["FIXED", ["8.10.0-r0"]]],
    );
  });
});

describe("matching: OSV ranges place the installed version", () => {
  const ranged = (ranges: unknown[], versions?: string[]) =>
    advisory("jinja2", "pypi", fixed("2.11.3"), {
      affected: JSON.stringify([
        {
          package: { ecosystem: "PyPI", name: "jinja2" },
          ranges,
          ...(versions ? { versions } : {}),
        },
      ]),
    });
  const range = [{ type: "ECOSYSTEM", events: [{ introduced: "2.0" }, { fixed: "2.11.3" }] }];

  it("a version below the introduced one is not affected, though below the fix", () => {
    assert.deepEqual(run(pkg("pkg:pypi/jinja2@1.9"), [ranged(range)]), []);
  });

  it("a version inside the range counts, with the fix", () => {
    assert.deepEqual(run(pkg("pkg:pypi/jinja2@2.10"), [ranged(range)]), [["FIXED", ["2.11.3"]]]);
  });

  it("the introduced version itself is affected", () => {
    assert.deepEqual(run(pkg("pkg:pypi/jinja2@2.0"), [ranged(range)]), [["FIXED", ["2.11.3"]]]);
  });

  it("ranges that cannot be evaluated leave it to the events", () => {
    const git = [{ type: "GIT", repo: "https://example.com/r", events: [{ introduced: "abc" }] }];
    assert.deepEqual(run(pkg("pkg:pypi/jinja2@1.9"), [ranged(git)]), [["FIXED", ["2.11.3"]]]);
  });
});

describe("matching: which advisories are candidates", () => {
  it("an advisory of the origin package applies to its subpackages", () => {
    const libssl = pkg("pkg:apk/wolfi/libssl3@3.3.2-r1", "openssl");
    assert.deepEqual(run(libssl, [advisory("openssl", "wolfi", fixed("3.3.2-r2"))]), [
      ["FIXED", ["3.3.2-r2"]],
    ]);
  });

  it("a namespace of another ecosystem never applies", () => {
    const requests = pkg("pkg:pypi/requests@2.0.0");
    assert.deepEqual(run(requests, [advisory("requests", "npm", [{}])]), []);
    assert.deepEqual(run(requests, [advisory("requests", "wolfi", [{}])]), []);
    const apk = pkg("pkg:apk/wolfi/zlib@1.3-r0");
    assert.deepEqual(run(apk, [advisory("zlib", "alpine:v3.20", [{}])]), []);
    assert.deepEqual(run(apk, [advisory("zlib", "debian", [{}])]), []);
  });

  it("Alpine advisories apply to an Alpine image of their release only", () => {
    const zlib = pkg("pkg:apk/alpine/zlib@1.3.1-r0");
    const alpine = { distro: "alpine 3.20", architecture: "amd64" };
    assert.equal(run(zlib, [advisory("zlib", "alpine:v3.20", [{}])], alpine).length, 1);
    assert.equal(run(zlib, [advisory("zlib", "alpine:v3.19", [{}])], alpine).length, 0);
    assert.equal(run(zlib, [advisory("zlib", "wolfi", [{}])], alpine).length, 0);
  });

  it("an advisory for another architecture does not apply; aarch64 names arm64", () => {
    const curl = pkg("pkg:apk/wolfi/curl@8.9.0-r0");
    const arm = advisory("curl", "wolfi", [{}], { artifact_architecture: "aarch64" });
    assert.equal(run(curl, [arm]).length, 0);
    assert.equal(run(curl, [arm], { distro: "wolfi", architecture: "arm64" }).length, 1);
  });

  it("of two advisories for one vulnerability, the one with the newest event decides", () => {
    const curl = pkg("pkg:apk/wolfi/curl@8.9.0-r0");
    const older = advisory("curl", "wolfi", [{}], { aliasList: ["CVE-2024-9999"] });
    const newer = advisory(
      "curl",
      "chainguard",
      [{}, {}, { type: "fixed", fixedVersion: "8.9.0-r0" }],
      {
        aliasList: ["CVE-2024-9999"],
      },
    );
    assert.deepEqual(run(curl, [older, newer]), []);
    assert.deepEqual(run(curl, [newer, older]), []);
  });

  it("an OpenVEX statement applies to a package of its artifact type", () => {
    const curl = pkg("pkg:apk/wolfi/curl@8.9.0-r0");
    const vex = advisory("curl", "openvex", [{ type: "fix-not-planned" }], {
      artifact_type: "apk",
    });
    assert.deepEqual(run(curl, [vex]), [["WONT_FIX", []]]);
    const lib = advisory("curl", "openvex", [{}], { artifact_type: "library" });
    assert.deepEqual(run(curl, [lib]), []);
  });
});

describe("matching: the reported vulnerability", () => {
  const metadata = new Map<string, VulnerabilityMetadata>([
    [
      "CVE-2024-1",
      {
        id: "CVE-2024-1",
        summary: "buffer overflow in parse",
        details: "",
        references: [{ type: "WEB", url: "https://example.test/1" }],
        severities: [
          {
            type: "CVSS_V3",
            score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H",
            baseScore: 9.8,
          },
        ],
        aliases: ["GHSA-xxxx-yyyy-zzzz"],
      },
    ],
    [
      "GHSA-xxxx-yyyy-zzzz",
      {
        id: "GHSA-xxxx-yyyy-zzzz",
        summary: "",
        details: "",
        references: [],
        severities: [{ type: "CVSS_V4", score: "CVSS:4.0/AV:N", baseScore: 6.1 }],
        aliases: ["CVE-2024-1"],
      },
    ],
  ]);

  it("is the CVE alias, with the metadata's summary, scores and links", () => {
    const a = advisory("openssl", "wolfi", fixed("3.3.2-r2"), {
      aliasList: ["GO-2024-1", "CVE-2024-1"],
    });
    const [m] = matchPackages([pkg("pkg:apk/wolfi/openssl@3.3.2-r1")], [a], metadata, wolfi);
    const expected: VulnerabilityMatch["vulnerability"] = {
      id: "CVE-2024-1",
      displayId: "CVE-2024-1",
      description: "buffer overflow in parse",
      // v4 wins over v3 when present: 6.1 is MEDIUM, though v3 says 9.8.
      severity: "MEDIUM",
      source: "wolfi",
      cvss: [
        { score: 9.8, version: "3.1" },
        { score: 6.1, version: "4.0" },
      ],
      cpeUri: [],
      relatedUrls: ["https://example.test/1"],
      advisories: {
        [a.advisory_id]: {
          id: a.advisory_id,
          latestEventType: "fixed",
          latestEventTime: "2024-01-02T00:00:00.000Z",
          fixedVersion: "3.3.2-r2",
        },
      },
      relatedVulnerabilities: [
        { id: "GO-2024-1", source: "go" },
        { id: "GHSA-xxxx-yyyy-zzzz", source: "ghsa" },
      ],
    };
    assert.deepEqual(m.vulnerability, expected);
    assert.deepEqual(m.pkg, {
      id: "pkg:apk/wolfi/openssl@3.3.2-r1",
      name: "openssl",
      version: "3.3.2-r1",
      purl: "pkg:apk/wolfi/openssl@3.3.2-r1",
      license: "MIT",
      description: "",
    });
  });

  it("without a CVE is the first alias, else the advisory id; no scores is UNKNOWN", () => {
    const ghsa = advisory("lodash", "npm", [{}], { aliasList: ["GHSA-1111-2222-3333"] });
    const bare = advisory("lodash", "npm", [{}], { aliasList: [] });
    const ms = matchPackages([pkg("pkg:npm/lodash@4.17.20")], [ghsa, bare], none, wolfi);
    assert.deepEqual(ms.map((m) => [m.vulnerability.id, m.vulnerability.severity]).sort(), [
      [bare.advisory_id, "UNKNOWN"],
      ["GHSA-1111-2222-3333", "UNKNOWN"],
    ]);
  });
});

describe("severity bands and counts", () => {
  it("bands CVSS base scores", () => {
    const at = (score: number) => severityOf([{ score, version: "3.1" }]);
    assert.deepEqual([10, 9, 8.9, 7, 6.9, 4, 3.9, 0.1, 0].map(at), [
      "CRITICAL",
      "CRITICAL",
      "HIGH",
      "HIGH",
      "MEDIUM",
      "MEDIUM",
      "LOW",
      "LOW",
      "NEGLIGIBLE",
    ]);
    assert.equal(severityOf([{ score: 9.3, version: "2.0" }]), "UNKNOWN");
    assert.equal(severityOf([]), "UNKNOWN");
  });

  it("counts each vulnerability once, under its highest severity", () => {
    const m = (
      id: string,
      severity: VulnerabilityMatch["vulnerability"]["severity"],
      name: string,
    ) => ({ vulnerability: { id, severity }, pkg: { name } }) as VulnerabilityMatch;
    const counts = reportCounts([
      m("CVE-1", "LOW", "a"),
      m("CVE-1", "HIGH", "b"),
      m("CVE-2", "UNKNOWN", "a"),
    ]);
    assert.equal(counts.counts.HIGH, 1);
    assert.equal(counts.counts.LOW, 0);
    assert.equal(counts.counts.UNKNOWN, 1);
    assert.deepEqual(counts.cveIds, ["CVE-1", "CVE-2"]);
    assert.deepEqual(counts.ids.HIGH, ["CVE-1"]);
  });
});
