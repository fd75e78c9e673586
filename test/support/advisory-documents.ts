import { advisoryIdAlphabet } from "../../src/vulnerabilities/feeds/advisory-id.ts";
import { falsePositiveTypes } from "../../src/vulnerabilities/feeds/feed-records.ts";

/** One generated `<name>.advisories.yaml` document. */
export interface AdvisoryDocument {
  /** The package name; the file is `<name>.advisories.yaml`. */
  name: string;
  text: string;
}

/** A seeded PRNG (mulberry32): the same seed gives the same documents on every machine. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const PACKAGES = [
  "openjdk-17",
  "openjdk-11",
  "openjdk-21",
  "ruby-3.2",
  "ruby-3.3",
  "python-3.12",
  "python-3.11",
  "nodejs-20",
  "nodejs-22",
  "php-8.3",
  "postgresql-16",
  "go-1.22",
  "curl",
  "openssl",
  "busybox",
  "grafana",
  "prometheus",
  "traefik",
  "envoy",
  "redis",
  "valkey",
  "nginx",
  "haproxy",
  "git",
  "jenkins",
  "keycloak",
  "trivy",
  "cosign",
  "syft",
  "kubectl",
  "helm",
  "argo-cd",
  "vault",
  "consul",
  "etcd",
  "containerd",
  "runc",
  "libxml2",
  "zlib",
  "sqlite",
];

const COMPONENTS: [string, string, string, string][] = [
  ["golang.org/x/net", "v0.17.0", "go-module", "/usr/bin/{pkg}"],
  ["google.golang.org/grpc", "v1.58.2", "go-module", "/usr/bin/{pkg}"],
  ["stdlib", "go1.21.3", "go-module", "/usr/bin/{pkg}"],
  ["{pkg}", "1.2.3-r0", "apk", "/lib/apk/db/installed"],
  ["jackson-databind", "2.13.4", "java-archive", "/usr/share/java/{pkg}/lib/jackson-databind.jar"],
  ["urllib3", "1.26.15", "python", "/usr/lib/python3.12/site-packages/urllib3"],
  ["h2", "0.3.20", "rust-crate", "/usr/bin/{pkg}"],
  ["semver", "7.5.1", "npm", "/usr/lib/node_modules/semver/package.json"],
  ["rack", "2.2.6", "gem", "/usr/lib/ruby/gems/3.2.0/specifications/rack.gemspec"],
];

/**
 * The shapes of advisory timelines (formats §1.1 "Edge cases"). Each letter is one event:
 * m/n/s detection manual/nvdapi/scan, f fixed, p false positive, t true positive,
 * x fix-not-planned, u pending-upstream-fix, a analysis-not-planned.
 */
const SCENARIOS = [
  "mf",
  "nf",
  "sf",
  "sp",
  "st",
  "sx",
  "suf",
  "sff",
  "sfs",
  "sps",
  "sa",
  "sxf",
  "stuf",
  "m",
  "s",
];

/**
 * `count` advisories spread over packages of about ten, as YAML text in the layout of the
 * wolfi-dev/advisories repository. The first advisories walk through every scenario, every
 * false-positive type and every alias shape, so any count of 60 or more covers them all.
 * Deterministic in (count, seed); fast enough for 100,000 advisories.
 */
export function generateAdvisoryDocuments(count: number, seed: number): AdvisoryDocument[] {
  const random = seededRandom(seed);
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)];
  const ids = new Set<string>();
  const newId = () => {
    for (;;) {
      let letters = "";
      for (let i = 0; i < 12; i++) letters += advisoryIdAlphabet[Math.floor(random() * 20)];
      const id = `CGA-${letters.slice(0, 4)}-${letters.slice(4, 8)}-${letters.slice(8)}`;
      if (!ids.has(id)) {
        ids.add(id);
        return id;
      }
    }
  };
  const ghsa = () => {
    let letters = "";
    for (let i = 0; i < 12; i++) letters += advisoryIdAlphabet[Math.floor(random() * 20)];
    return `GHSA-${letters.slice(0, 4)}-${letters.slice(4, 8)}-${letters.slice(8)}`;
  };
  const documents: AdvisoryDocument[] = [];
  // Counts false positives across documents so the types rotate whatever the scenario order.
  const state = { falsePositives: 0 };
  let made = 0;
  for (let doc = 0; made < count; doc++) {
    const base = PACKAGES[doc % PACKAGES.length];
    const round = Math.floor(doc / PACKAGES.length);
    const name = round === 0 ? base : `${base}-mirror${round}`;
    const size = Math.min(count - made, 1 + Math.floor(random() * 19));
    const advisories: { id: string; lines: string[]; needs: number }[] = [];
    for (let k = 0; k < size; k++, made++) {
      const scenario =
        made < SCENARIOS.length * 4 ? SCENARIOS[made % SCENARIOS.length] : pick(SCENARIOS);
      const cveYear = 2018 + Math.floor(random() * 8);
      const cve = `CVE-${cveYear}-${1000 + Math.floor(random() * 60000)}`;
      const aliasShape =
        made % 7 === 3 ? "ghsa" : made % 7 === 5 ? "cve" : made % 7 === 6 ? "go" : "both";
      const aliases =
        aliasShape === "ghsa"
          ? [ghsa()]
          : aliasShape === "cve"
            ? [cve]
            : aliasShape === "go"
              ? [cve, `GO-${cveYear}-${2000 + Math.floor(random() * 3000)}`]
              : [cve, ghsa()];
      let time = Date.UTC(2022, 0, 1) + Math.floor(random() * 900) * 86_400_000;
      let fixes = 0;
      const events: string[][] = [];
      let needs = 0;
      // Every fourth document stays within an older schema-version: 2 (no scan/v1, no
      // pending-upstream-fix) or 2.0.1 (no scan/v1).
      const legacy = doc % 4 === 0 ? (doc % 8 === 0 ? "2" : "2.0.1") : undefined;
      const letters = legacy === undefined ? scenario : scenario.replaceAll("s", "n");
      for (const letter of legacy === "2" ? letters.replaceAll("u", "x") : letters) {
        time += (1 + Math.floor(random() * 400)) * 3_600_000 + Math.floor(random() * 3600) * 1000;
        const stamp = new Date(time).toISOString().replace(".000Z", "Z");
        const ordinal = made + fixes;
        const event = eventLines(letter, stamp, name, ordinal, fixes++, { pick, random, state });
        if (letter === "u") needs = Math.max(needs, 1);
        if (letter === "s") needs = 2;
        events.push(event);
      }
      // Every ninth multi-event advisory is written out of time order, as 22 real files are.
      if (events.length > 1 && made % 9 === 4) events.reverse();
      const lines = [
        `  - id: ${newId()}`,
        "    aliases:",
        ...aliases.map((a) => `      - ${a}`),
        "    events:",
      ];
      for (const event of events) lines.push(...event);
      advisories.push({ id: lines[0].slice(8), lines, needs });
    }
    advisories.sort((a, b) => (a.id < b.id ? -1 : 1));
    const needs = Math.max(...advisories.map((a) => a.needs));
    // Most documents say 2.0.2; the legacy ones the oldest version their events allow.
    const version = doc % 4 === 0 ? ["2", "2.0.1", "2.0.2"][needs] : "2.0.2";
    const text = [
      `schema-version: ${version}`,
      "",
      "package:",
      `  name: ${name}`,
      "",
      "advisories:",
      ...advisories.flatMap((a) => a.lines),
      "",
    ].join("\n");
    documents.push({ name, text });
  }
  return documents;
}

/** The YAML lines of one event of the given letter. */
function eventLines(
  letter: string,
  stamp: string,
  pkg: string,
  ordinal: number,
  fixCount: number,
  tools: {
    pick: <T>(list: readonly T[]) => T;
    random: () => number;
    state: { falsePositives: number };
  },
): string[] {
  const { pick, random, state } = tools;
  const head = (type: string) => [`      - timestamp: ${stamp}`, `        type: ${type}`];
  const note = (text: string) => [`          note: ${JSON.stringify(text)}`];
  const url = `https://github.com/example/${pkg}/issues/${100 + (ordinal % 900)}`;
  const multiLine = [
    "          note: |",
    `            The vulnerable code in ${pkg} is only reached when the legacy mode is on.`,
    `            Upstream discussion: ${url}`,
    "            Wolfi builds with the legacy mode off.",
  ];
  switch (letter) {
    case "m":
      return [...head("detection"), "        data:", "          type: manual"];
    case "n":
      return [
        ...head("detection"),
        "        data:",
        "          type: nvdapi",
        "          data:",
        `            cpeSearched: cpe:2.3:a:*:${pkg}:*:*:*:*:*:*:*:*`,
        `            cpeFound: cpe:2.3:a:${pkg}:${pkg}:*:*:*:*:*:*:*:*`,
      ];
    case "s": {
      const [component, version, type, location] = pick(COMPONENTS);
      const sub = ordinal % 5 === 0 ? `${pkg}-compat` : pkg;
      return [
        ...head("detection"),
        "        data:",
        "          type: scan/v1",
        "          data:",
        `            subpackageName: ${sub}`,
        `            componentID: "${hex(random)}${hex(random)}"`,
        `            componentName: ${component.replace("{pkg}", pkg)}`,
        `            componentVersion: ${version}`,
        `            componentType: ${type}`,
        `            componentLocation: ${location.replace("{pkg}", pkg)}`,
        "            scanner: grype",
      ];
    }
    case "f":
      return [
        ...head("fixed"),
        "        data:",
        `          fixed-version: ${1 + (ordinal % 9)}.${fixCount}.${ordinal % 13}-r${ordinal % 4}`,
      ];
    case "p": {
      const type = falsePositiveTypes[state.falsePositives++ % falsePositiveTypes.length];
      const notes =
        ordinal % 3 === 0 ? [] : ordinal % 3 === 1 ? multiLine : note(`Not affected, see ${url}`);
      return [
        ...head("false-positive-determination"),
        "        data:",
        `          type: ${type}`,
        ...notes,
      ];
    }
    case "t":
      return ordinal % 4 === 0
        ? head("true-positive-determination")
        : [
            ...head("true-positive-determination"),
            "        data:",
            ...note(`Confirmed in ${pkg}.`),
          ];
    case "x":
      return [
        ...head("fix-not-planned"),
        "        data:",
        ...note(`${pkg} is end of life upstream; no fix is planned.`),
      ];
    case "u":
      return [
        ...head("pending-upstream-fix"),
        "        data:",
        ...(ordinal % 2 === 0 ? multiLine : note(`Waiting for upstream, see ${url}`)),
      ];
    case "a":
      return [
        ...head("analysis-not-planned"),
        "        data:",
        ...note("Analysis is not planned for this stream."),
      ];
  }
  throw new Error(`unknown scenario letter ${letter}`);
}

/** Eight hex digits: one draw of the PRNG's 32 bits. */
function hex(random: () => number): string {
  return Math.floor(random() * 2 ** 32)
    .toString(16)
    .padStart(8, "0");
}
