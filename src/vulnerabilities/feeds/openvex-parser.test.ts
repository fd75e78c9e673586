import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { sharedDataDir } from "../../versions/testdata/shared-data.ts";
import { deriveAdvisoryId } from "./advisory-id.ts";
import type { ParsedFeed } from "./feed-records.ts";
import { justificationTypes } from "./openvex-event.ts";
import { parseOpenVex } from "./openvex-parser.ts";
import { packageName, parsePackageUrl } from "./package-url.ts";

const vexDir = sharedDataDir("openvex");

const document = (statements: unknown[]) => ({
  "@context": "https://openvex.dev/ns/v0.2.0",
  "@id": "https://openvex.dev/docs/public/vex-1",
  author: "test",
  timestamp: "2024-01-01T00:00:00Z",
  version: 1,
  statements,
});

const parse = (value: unknown): ParsedFeed =>
  parseOpenVex({ file: "v.json", text: JSON.stringify(value) });

const statement = (extra: Record<string, unknown>) => ({
  vulnerability: { name: "CVE-2024-1111", aliases: ["GHSA-2345-6789-cfgh"] },
  products: [{ "@id": "pkg:apk/wolfi/curl@8.5.0-r1?arch=aarch64" }],
  status: "under_investigation",
  ...extra,
});

test("a statement about a product is an advisory keyed by document, vulnerability and versionless purl", () => {
  const feed = parse(document([statement({ timestamp: "2024-02-01T00:00:00Z" })]));
  assert.deepEqual(feed.rejected, []);
  const pair = "vex:CVE-2024-1111:pkg:apk/wolfi/curl?arch=aarch64";
  assert.deepEqual(feed.advisories, [
    {
      key: "vex:v.json:CVE-2024-1111:pkg:apk/wolfi/curl?arch=aarch64",
      document: "v.json",
      advisoryId: deriveAdvisoryId(pair),
      artifactName: "curl",
      artifactType: "apk",
      artifactArchitecture: "aarch64",
      componentName: "",
      componentType: "",
      componentLocation: "",
      aliases: ["CVE-2024-1111", "GHSA-2345-6789-cfgh"],
      events: [
        { timestamp: "2024-02-01T00:00:00.000Z", type: "detection", detection: { type: "manual" } },
      ],
      packageNamespace: "openvex",
    },
  ]);
});

test("statements are a timeline: every status becomes its event, in time order", () => {
  const feed = parse(
    document([
      statement({ status: "fixed", timestamp: "2024-04-01T00:00:00Z" }),
      statement({
        status: "affected",
        action_statement: "upgrade",
        timestamp: "2024-02-01T00:00:00Z",
      }),
      statement({
        status: "not_affected",
        justification: "component_not_present",
        impact_statement: "gone",
        timestamp: "2024-05-01T00:00:00Z",
      }),
      statement({ status: "not_affected", impact_statement: "argued" }),
      statement({ status: "under_investigation", timestamp: "2024-01-15T00:00:00Z" }),
    ]),
  );
  assert.deepEqual(feed.rejected, []);
  assert.equal(feed.advisories.length, 1);
  assert.deepEqual(feed.advisories[0].events, [
    // No statement timestamp: the document's.
    {
      timestamp: "2024-01-01T00:00:00.000Z",
      type: "false-positive-determination",
      falsePositiveType: "vulnerability-record-analysis-contested",
      note: "argued",
    },
    { timestamp: "2024-01-15T00:00:00.000Z", type: "detection", detection: { type: "manual" } },
    { timestamp: "2024-02-01T00:00:00.000Z", type: "true-positive-determination", note: "upgrade" },
    { timestamp: "2024-04-01T00:00:00.000Z", type: "fixed", fixedVersion: "8.5.0-r1" },
    {
      timestamp: "2024-05-01T00:00:00.000Z",
      type: "false-positive-determination",
      falsePositiveType: "component-vulnerability-mismatch",
      note: "gone",
    },
  ]);
});

test("every justification maps back to a false-positive type", () => {
  assert.deepEqual(justificationTypes, {
    component_not_present: "component-vulnerability-mismatch",
    vulnerable_code_not_present: "vulnerable-code-not-included-in-package",
    vulnerable_code_not_in_execute_path: "vulnerable-code-not-in-execution-path",
    vulnerable_code_cannot_be_controlled_by_adversary:
      "vulnerable-code-cannot-be-controlled-by-adversary",
    inline_mitigations_already_exist: "inline-mitigations-exist",
  });
  for (const [justification, type] of Object.entries(justificationTypes)) {
    const feed = parse(
      document([statement({ status: "not_affected", justification, status_notes: "n" })]),
    );
    assert.deepEqual(
      [feed.advisories[0].events[0].falsePositiveType, feed.advisories[0].events[0].note],
      [type, "n"],
    );
  }
});

test("a CGA vulnerability name is the advisory id; other names become aliases", () => {
  const cga = parse(
    document([
      statement({
        vulnerability: {
          name: "CGA-2345-6789-cfgh",
          aliases: ["CVE-2024-1", "CGA-3456-789c-fghj"],
        },
      }),
    ]),
  );
  assert.equal(cga.advisories[0].advisoryId, "CGA-2345-6789-cfgh");
  assert.deepEqual(cga.advisories[0].aliases, ["CVE-2024-1", "CGA-3456-789c-fghj"]);
});

test("artifacts from purls: images, libraries with their namespace, Maven as group:artifact", () => {
  const products = [
    "pkg:oci/dhi%2Fbusybox?repository_url=docker.io",
    "pkg:docker/dhi/busybox@sha256%3Aabc",
    "pkg:maven/org.apache/commons-io@2.14.0",
    "pkg:golang/k8s.io/apiserver@v0.30.0",
    "pkg:npm/%40scope/name@1.0.0",
  ].map((id) => ({ "@id": id }));
  const feed = parse(
    document([
      statement({ products: [...products, { identifiers: { purl: "pkg:pypi/jinja2@3.1.4" } }] }),
    ]),
  );
  assert.deepEqual(feed.rejected, []);
  assert.deepEqual(
    feed.advisories.map((a) => [a.key, a.artifactName, a.artifactType]),
    [
      ["vex:v.json:CVE-2024-1111:pkg:oci/dhi%2Fbusybox", "dhi/busybox", "image"],
      ["vex:v.json:CVE-2024-1111:pkg:docker/dhi/busybox", "dhi/busybox", "image"],
      [
        "vex:v.json:CVE-2024-1111:pkg:maven/org.apache/commons-io",
        "org.apache:commons-io",
        "library",
      ],
      ["vex:v.json:CVE-2024-1111:pkg:golang/k8s.io/apiserver", "k8s.io/apiserver", "library"],
      ["vex:v.json:CVE-2024-1111:pkg:npm/%40scope/name", "@scope/name", "library"],
      ["vex:v.json:CVE-2024-1111:pkg:pypi/jinja2", "jinja2", "library"],
    ],
  );
});

test("the newest statement's first subcomponent names the component", () => {
  const product = (sub: string) => ({
    "@id": "pkg:docker/dhi/app",
    subcomponents: [{ "@id": sub }],
  });
  const feed = parse(
    document([
      statement({
        products: [product("pkg:golang/golang.org/x/net@v0.1.0")],
        timestamp: "2024-03-01T00:00:00Z",
      }),
      statement({
        products: [product("pkg:apk/alpine/busybox@1.0-r0")],
        timestamp: "2024-02-01T00:00:00Z",
      }),
    ]),
  );
  assert.deepEqual(
    [feed.advisories[0].componentName, feed.advisories[0].componentType],
    ["golang.org/x/net", "golang"],
  );
});

test("bad statements and products are refused with their position; the rest is kept", () => {
  const feed = parse(
    document([
      statement({}),
      statement({ vulnerability: {} }),
      statement({ products: [] }),
      statement({ status: "maybe" }),
      statement({ status: "not_affected", justification: "because" }),
      statement({ timestamp: "soon" }),
      statement({
        status: "fixed",
        products: [
          { "@id": "pkg:apk/wolfi/curl" },
          { "@id": "https://example.com/x" },
          { "@id": "pkg:apk/wolfi/zlib@1.3-r0" },
        ],
      }),
    ]),
  );
  assert.deepEqual(
    feed.rejected.map((r) => [r.position, r.reason]),
    [
      ["statements[1]", "the statement names no vulnerability"],
      ["statements[2]", "the statement has no products"],
      ["statements[3]", 'unknown status "maybe"'],
      ["statements[4]", 'unknown justification "because"'],
      ["statements[5]", 'timestamp "soon" is not RFC 3339'],
      ["statements[6].products[0]", "a fixed product needs a version in its purl"],
      ["statements[6].products[1]", "the product has no package URL"],
    ],
  );
  assert.deepEqual(feed.damagedDocuments, ["v.json"]);
  assert.deepEqual(
    feed.advisories.map((a) => a.artifactName),
    ["curl", "zlib"],
  );
});

test("documents that are not OpenVEX v0.2.0 are refused whole", () => {
  const reason = (value: unknown) => parse(value).rejected.map((r) => r.reason);
  assert.deepEqual(reason({ ...document([]), "@context": "https://openvex.dev/ns/v0.0.1" }), [
    "OpenVEX v0.0.1 is not the version this Lading reads (v0.2.0)",
  ]);
  assert.deepEqual(reason({ ...document([]), "@context": "https://example.com" }), [
    '@context "https://example.com" is not OpenVEX',
  ]);
  assert.deepEqual(reason({ ...document([]), "@id": undefined }), ["@id is missing"]);
  assert.match(parseOpenVex({ file: "x", text: "{" }).rejected[0].reason, /^not valid JSON/);
});

test("package URLs are read per purl-spec", () => {
  assert.deepEqual(parsePackageUrl("pkg:APK/wolfi/curl@8.5.0-r1?Arch=x86_64&distro=#sub/path"), {
    type: "apk",
    namespace: "wolfi",
    name: "curl",
    version: "8.5.0-r1",
    qualifiers: { arch: "x86_64" },
    subpath: "sub/path",
  });
  assert.equal(parsePackageUrl("pkg:npm/@scope/name@1.0.0")?.version, "1.0.0");
  assert.equal(packageName(parsePackageUrl("pkg:npm/@scope/name@1.0.0") as never), "@scope/name");
  assert.equal(parsePackageUrl("https://example.com"), undefined);
  assert.equal(parsePackageUrl("pkg:npm"), undefined);
  assert.equal(parsePackageUrl("pkg:npm/%E0%A4%A"), undefined);
});

test("the shared DHI documents parse with no rejection", { skip: vexDir === undefined }, () => {
  const dir = join(vexDir as string, "dhi");
  const files = readdirSync(dir).filter((f) => f.endsWith(".json"));
  assert.equal(files.length, 4);
  const advisories = files.flatMap((file) => {
    const feed = parseOpenVex({ file, text: readFileSync(join(dir, file), "utf8") });
    assert.deepEqual(feed.rejected, [], file);
    return feed.advisories;
  });
  assert.equal(advisories.length, 18);
  const count = (values: string[]) =>
    Object.fromEntries(
      [...new Set(values)].sort().map((v) => [v, values.filter((x) => x === v).length]),
    );
  assert.deepEqual(count(advisories.map((a) => a.artifactType)), { apk: 4, image: 12, library: 2 });
  assert.deepEqual(
    count(advisories.map((a) => a.events.map((e) => e.falsePositiveType ?? e.type).join())),
    {
      detection: 12,
      "inline-mitigations-exist": 3,
      "vulnerable-code-not-included-in-package": 3,
    },
  );
  // The same product appears in two documents (busybox in two images' documents, the Go
  // module in two images'): the key alone does not tell the documents apart.
  assert.equal(new Set(advisories.map((a) => a.key)).size, 18);
  assert.equal(new Set(advisories.map((a) => a.advisoryId)).size, 15);
  const trivy = advisories.find((a) => a.key.endsWith(":CVE-2020-8552:pkg:oci/dhi%2Ftrivy"));
  assert.deepEqual(
    [trivy?.artifactName, trivy?.componentName, trivy?.componentType],
    ["dhi/trivy", "k8s.io/apiserver", "golang"],
  );
});

test("documents that share an @id are told apart by file name; from stdin the @id names them", () => {
  const doc = document([statement({ timestamp: "2024-02-01T00:00:00Z" })]);
  const a = parseOpenVex({ file: "feeds/a.vex.json", text: JSON.stringify(doc) });
  const b = parseOpenVex({ file: "feeds/b.vex.json", text: JSON.stringify(doc) });
  assert.deepEqual(
    [a.advisories[0].document, b.advisories[0].document],
    ["a.vex.json", "b.vex.json"],
  );
  assert.notEqual(a.advisories[0].key, b.advisories[0].key);
  assert.equal(a.advisories[0].advisoryId, b.advisories[0].advisoryId);
  const stdin = parseOpenVex({ file: "-", text: JSON.stringify(doc) });
  assert.equal(stdin.advisories[0].document, "https://openvex.dev/docs/public/vex-1");
});
