import assert from "node:assert/strict";
import { before, it } from "node:test";
import { bootstrapOrganisation } from "../../src/app/index.ts";
import { moveTag } from "../../src/registry/index.ts";
import { emptySummary } from "../../src/vulnerabilities/import/import-summary.ts";
import { writeVulnerabilities } from "../../src/vulnerabilities/import/vulnerability-writer.ts";
import { computeReport } from "../../src/vulnreports/matching/index.ts";
import { advisoryYaml } from "../support/advisory-yaml.ts";
import { holder } from "../support/iam-fixtures.ts";
import { rematchFlags, storeScan } from "../support/image-scans.ts";
import { failed, type Loose, matrix, ok, violations } from "../support/matrix.ts";
import { putImage, putManifest, type RegistryApi, registryApi } from "../support/registry-api.ts";
import { type SecurityApi, securityApi } from "../support/security-api.ts";

const detected = { timestamp: "2024-05-01T00:00:00Z", type: "detection", data: { type: "manual" } };
const fixedAt = (version: string) => [
  detected,
  { timestamp: "2024-05-02T00:00:00Z", type: "fixed", data: { "fixed-version": version } },
];
const then = (type: string, data: Loose) => [
  detected,
  { timestamp: "2024-05-02T00:00:00Z", type, data },
];

/** openssl: fixed above, exactly at, false positive, fix not planned; busybox: detected. */
const wolfiDocuments = [
  {
    name: "openssl.advisories.yaml",
    content: advisoryYaml("openssl", [
      { id: "CGA-wwww-2222-222c", aliases: ["CVE-2024-0001"], events: fixedAt("3.3.2-r2") },
      { id: "CGA-wwww-2222-222f", aliases: ["CVE-2024-0002"], events: fixedAt("3.3.2-r1") },
      {
        id: "CGA-wwww-2222-222g",
        aliases: ["CVE-2024-0003"],
        events: then("false-positive-determination", {
          type: "vulnerable-code-not-included-in-package",
          note: "not built",
        }),
      },
      {
        id: "CGA-wwww-2222-222h",
        aliases: ["CVE-2024-0004"],
        events: then("fix-not-planned", { note: "end of life branch" }),
      },
    ]),
  },
  {
    name: "busybox.advisories.yaml",
    content: advisoryYaml("busybox", [
      { id: "CGA-wwww-2222-222j", aliases: ["CVE-2024-0005"], events: [detected] },
    ]),
  },
];

/** A PyPI record fixed in 2.32.0, rated CVSS 3.1 7.5, and a withdrawn one. */
const osvDocuments = [
  {
    name: "GHSA-aaaa-bbbb-cccc.json",
    content: JSON.stringify({
      schema_version: "1.6.0",
      id: "GHSA-aaaa-bbbb-cccc",
      published: "2024-05-01T00:00:00Z",
      modified: "2024-05-02T00:00:00Z",
      aliases: ["CVE-2024-0006"],
      summary: "requests leaks proxy credentials",
      severity: [{ type: "CVSS_V3", score: "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:N/A:N" }],
      affected: [
        {
          package: { ecosystem: "PyPI", name: "requests" },
          ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed: "2.32.0" }] }],
        },
      ],
    }),
  },
  {
    name: "GHSA-dddd-eeee-ffff.json",
    content: JSON.stringify({
      schema_version: "1.6.0",
      id: "GHSA-dddd-eeee-ffff",
      published: "2024-05-01T00:00:00Z",
      modified: "2024-05-03T00:00:00Z",
      withdrawn: "2024-05-03T00:00:00Z",
      aliases: ["CVE-2024-0007"],
      affected: [
        {
          package: { ecosystem: "PyPI", name: "requests" },
          ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }] }],
        },
      ],
    }),
  },
];

const apk = (name: string, version: string, origin = "") => ({
  name,
  version,
  purl: `pkg:apk/wolfi/${name}@${version}?arch=x86_64`,
  ecosystem: "apk",
  origin,
});

/** [id, package, state, fixed versions, severity] of each match, as the report lists them. */
const summary = (report: Loose) =>
  (report.vulnerabilityMatches as Loose[])
    .map((m) => [
      m.vulnerability.id,
      m.pkg.name,
      m.fix.state ?? "UNKNOWN",
      m.fix.versions ?? [],
      m.vulnerability.severity ?? "UNKNOWN",
    ])
    .sort((a, b) => `${a[0]}${a[1]}`.localeCompare(`${b[0]}${b[1]}`));

// Scans and reports are driven by hand here; the server must not scan or re-match by itself.
matrix(
  "Vulnerability reports",
  (h) => {
    let reg: RegistryApi;
    let security: SecurityApi;
    let repo = "";
    let group = "";
    /** openssl, libssl3 (origin openssl), busybox, requests: amd64. */
    let full = "";
    /** busybox only: arm64. */
    let small = "";
    /** zlib only: untouched by the advisories. */
    let other = "";
    /** libssl3 only, whose origin is openssl. */
    let sub = "";
    /** A manifest with no scan. */
    let unscanned = "";
    let index = "";

    const importDocuments = async (format: string, documents: Loose[], source: string) =>
      ok(await security.importAdvisories({ parent: group, format, source, documents }));

    before(async () => {
      reg = registryApi(h.transport, h.server.apiUrl, h.server.org.token);
      security = securityApi(h.transport, h.server.apiUrl, h.server.org.token);
      repo = ok(await reg.createRepo(h.server.org.groupUid, { name: "app" })).uid;
      group = ok(await h.api.create("groups", h.server.org.groupUid, { name: "security" }))
        .uid as string;
      await importDocuments("IMPORT_FORMAT_ADVISORIES", wolfiDocuments, "wolfi");
      await importDocuments("IMPORT_FORMAT_OSV", osvDocuments, "osv");
      full = (await putImage(h.server, repo, "amd64", [10])).digest;
      small = (await putImage(h.server, repo, "arm64", [20])).digest;
      other = (await putImage(h.server, repo, "amd64", [30])).digest;
      unscanned = (await putImage(h.server, repo, "amd64", [40])).digest;
      sub = (await putImage(h.server, repo, "amd64", [50])).digest;
      index = await putManifest(h.server, repo, {
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.index.v1+json",
        manifests: [
          { digest: small, size: 1, platform: { architecture: "arm64", os: "linux" } },
          { digest: full, size: 1, platform: { architecture: "amd64", os: "linux" } },
        ],
      });
      const wolfi = (architecture: string, size: number) => ({
        distro: "wolfi",
        architecture,
        size,
      });
      await storeScan(h.server, repo, full, wolfi("amd64", 1234), [
        apk("openssl", "3.3.2-r1"),
        apk("libssl3", "3.3.2-r1", "openssl"),
        apk("busybox", "1.36.1-r7"),
        {
          name: "requests",
          version: "2.31.0",
          purl: "pkg:pypi/requests@2.31.0",
          ecosystem: "pypi",
        },
      ]);
      await storeScan(h.server, repo, small, wolfi("arm64", 99), [apk("busybox", "1.36.1-r7")]);
      await storeScan(h.server, repo, other, wolfi("amd64", 5), [apk("zlib", "1.3-r0")]);
      await storeScan(h.server, repo, sub, wolfi("amd64", 6), [
        apk("libssl3", "3.3.2-r1", "openssl"),
      ]);
      const db = h.server.lading.store.db;
      for (const digest of [full, small, other, sub]) {
        assert.deepEqual(await computeReport(db, { repoUid: repo, digest }), { generation: 1 });
      }
    });

    it("reports affected, fixed and won't-fix matches; fixed-at, false positives and withdrawn do not count", async () => {
      const report = ok(await reg.getVulnReport(repo, full));
      assert.deepEqual(summary(report), [
        ["CVE-2024-0001", "libssl3", "FIXED", ["3.3.2-r2"], "UNKNOWN"],
        ["CVE-2024-0001", "openssl", "FIXED", ["3.3.2-r2"], "UNKNOWN"],
        ["CVE-2024-0004", "libssl3", "WONT_FIX", [], "UNKNOWN"],
        ["CVE-2024-0004", "openssl", "WONT_FIX", [], "UNKNOWN"],
        ["CVE-2024-0005", "busybox", "NOT_FIXED", [], "UNKNOWN"],
        ["CVE-2024-0006", "requests", "FIXED", ["2.32.0"], "HIGH"],
      ]);
      assert.equal(report.id, `${repo}@${full}`);
      assert.equal(String(report.reportGeneration), "1");
      assert.equal(report.scanner.name, "lading");
      assert.match(report.scanner.version, /^lading-\d+\.\d+\.\d+/);
      assert.ok(report.scanner.vulnerabilityDbLastBuildTime >= "2024");
      const raw = JSON.parse(Buffer.from(report.rawVulnReport, "base64").toString("utf8"));
      assert.equal(raw.length, 6);
      const requests = (report.vulnerabilityMatches as Loose[]).find(
        (m) => m.pkg.name === "requests",
      );
      assert.deepEqual(requests?.vulnerability.cvss, [{ score: 7.5, version: "3.1" }]);
      assert.equal(requests?.vulnerability.description, "requests leaks proxy credentials");
      assert.equal(requests?.pkg.purl, "pkg:pypi/requests@2.31.0");
      const openssl = (report.vulnerabilityMatches as Loose[]).find(
        (m) => m.pkg.name === "openssl" && m.vulnerability.id === "CVE-2024-0001",
      );
      assert.equal(
        openssl?.vulnerability.advisories["CGA-wwww-2222-222c"].latestEventType,
        "fixed",
      );
    });

    it("merges an index's platform reports", async () => {
      const report = ok(await reg.getVulnReport(repo, index));
      assert.equal(report.id, `${repo}@${index}`);
      // busybox of both platforms is one package id (same purl): listed once.
      assert.deepEqual(summary(report), summary(ok(await reg.getVulnReport(repo, full))));
      assert.equal(String(report.reportGeneration), "1");
    });

    it("refuses a malformed digest and answers NOT_FOUND for unknown or unscanned images", async () => {
      const bad = failed(await reg.getVulnReport(repo, "sha256:nothex"));
      assert.equal(bad.code, 3);
      assert.deepEqual(
        violations(bad).map((v) => v.field),
        ["digest"],
      );
      const unknown = failed(await reg.getVulnReport(repo, `sha256:${"0".repeat(64)}`));
      assert.equal(unknown.code, 5);
      const notYet = failed(await reg.getVulnReport(repo, unscanned));
      assert.equal(notYet.code, 5);
      assert.match(notYet.message, /vulnerability report .*not scanned yet/);
    });

    it("denies callers without repo.list and vuln_reports.list, other organisations and anonymous ones", async () => {
      const server = h.server;
      const as = (token: string | undefined) => registryApi(h.transport, server.apiUrl, token);
      const anonymous = failed(await as(undefined).getVulnReport(repo, full));
      assert.equal(anonymous.code, 16);
      const boot = await bootstrapOrganisation(server.lading.store.db, `other-${h.transport}`);
      const outsider = failed(
        await as(await server.token(boot.identityUid)).getVulnReport(repo, full),
      );
      assert.equal(outsider.code, 5);
      const org = server.org.groupUid;
      const listOnly = await holder(server, org, ["repo.list"]);
      assert.equal(failed(await as(listOnly.token).getVulnReport(repo, full)).code, 7);
      const reportsOnly = await holder(server, org, ["vuln_reports.list"]);
      assert.equal(failed(await as(reportsOnly.token).getVulnReport(repo, full)).code, 5);
      const both = await holder(server, org, ["repo.list", "vuln_reports.list"]);
      assert.equal(summary(ok(await as(both.token).getVulnReport(repo, full))).length, 6);

      const counts = { repo: "acme/app", tag: "latest", from: "2024-03-01", to: "2024-03-02" };
      assert.equal(failed(await as(undefined).listVulnCountReports(counts)).code, 16);
      const outsiderCounts = failed(
        await as(await server.token(boot.identityUid)).listVulnCountReports(counts),
      );
      assert.equal(outsiderCounts.code, 5);
      assert.equal(failed(await as(both.token).listVulnCountReports(counts, true)).code, 7);
      const counter = await holder(server, org, ["repo.list", "vuln_report.list"]);
      ok(await as(counter.token).listVulnCountReports(counts));
    });

    it("gives one count report per day for the digest the tag pointed to that day", async () => {
      const db = h.server.lading.store.db;
      await moveTag(db, repo, "latest", full);
      await moveTag(db, repo, "latest", small);
      const times = ["2024-03-01T10:00:00.000Z", "2024-03-03T12:00:00.000Z"];
      const history = await db
        .selectFrom("tag_history")
        .select("seq")
        .where("repo_uid", "=", repo)
        .where("tag", "=", "latest")
        .orderBy("seq")
        .execute();
      for (const [i, row] of history.entries()) {
        await db
          .updateTable("tag_history")
          .set({ update_time: times[i] })
          .where("repo_uid", "=", repo)
          .where("tag", "=", "latest")
          .where("seq", "=", row.seq)
          .execute();
      }
      await db
        .updateTable("vuln_reports")
        .set({ create_time: "2024-02-01T00:00:00.000Z" })
        .execute();
      const params = {
        repo: "acme/app",
        tag: "latest",
        from: "2024-02-28",
        to: "2024-03-04T08:00:00Z",
      };
      const daily = ok(await reg.listVulnCountReports(params)).items as Loose[];
      const fullDay = {
        cveIds: ["CVE-2024-0001", "CVE-2024-0004", "CVE-2024-0005", "CVE-2024-0006"],
        high: ["CVE-2024-0006"],
        unknown: ["CVE-2024-0001", "CVE-2024-0004", "CVE-2024-0005"],
      };
      const smallDay = { cveIds: ["CVE-2024-0005"], high: [], unknown: ["CVE-2024-0005"] };
      const shape = (d: Loose) => ({
        cveIds: d.cveIds ?? [],
        high: d.highCveIds ?? [],
        unknown: d.unknownCveIds ?? [],
      });
      assert.deepEqual(
        daily.map((d) => [d.date, d.digest, String(d.sizeBytes)]),
        [
          ["2024-03-01", full, "1234"],
          ["2024-03-02", full, "1234"],
          ["2024-03-03", small, "99"],
          ["2024-03-04", small, "99"],
        ],
      );
      assert.deepEqual(daily.map(shape), [fullDay, fullDay, smallDay, smallDay]);
      const counts = (d: Loose) =>
        Object.fromEntries((d.vulnCounts as Loose[]).map((c) => [c.severity, Number(c.count)]));
      assert.deepEqual(counts(daily[0]), {
        CRITICAL: 0,
        HIGH: 1,
        MEDIUM: 0,
        LOW: 0,
        NEGLIGIBLE: 0,
        UNKNOWN: 3,
      });
      assert.equal(daily[0].repo, "acme/app");
      assert.equal(daily[0].tag, "latest");

      const cumulative = ok(await reg.listVulnCountReports(params, true)).items as Loose[];
      assert.deepEqual(cumulative.map(shape), [fullDay, fullDay, fullDay, fullDay]);
    });

    it("refuses bad count parameters, naming the field", async () => {
      const bad = async (p: Loose) =>
        violations(failed(await reg.listVulnCountReports(p))).map((v) => v.field);
      const base = { repo: "acme/app", tag: "latest", from: "2024-03-01", to: "2024-03-02" };
      assert.deepEqual(await bad({ ...base, repo: "app" }), ["repo"]);
      assert.deepEqual(await bad({ ...base, tag: "-x" }), ["tag"]);
      assert.deepEqual(await bad({ ...base, from: "2024-02-30" }), ["from"]);
      assert.deepEqual(await bad({ ...base, to: "yesterday" }), ["to"]);
      assert.deepEqual(await bad({ ...base, from: "2024-03-03" }), ["from"]);
      assert.deepEqual(await bad({ ...base, from: "2023-01-01", to: "2024-03-01" }), ["from"]);
    });

    it("marks only the images an import touches, and re-matching makes generation 2", async () => {
      // A scan in progress is marked too: its report may have read the advisories already.
      await h.server.lading.store.db
        .updateTable("image_scans")
        .set({ state: "scanning" })
        .where("digest", "=", sub)
        .execute();
      await importDocuments(
        "IMPORT_FORMAT_ADVISORIES",
        [
          {
            name: "openssl.advisories.yaml",
            content: advisoryYaml("openssl", [
              { id: "CGA-wwww-2222-222m", aliases: ["CVE-2024-0008"], events: [detected] },
            ]),
          },
        ],
        "wolfi-extra",
      );
      // sub holds openssl only as the origin of libssl3.
      assert.deepEqual(await rematchFlags(h.server, repo, [full, small, other, sub]), [1, 0, 0, 1]);
      const db = h.server.lading.store.db;
      assert.deepEqual(await computeReport(db, { repoUid: repo, digest: full }), { generation: 2 });
      assert.deepEqual(await rematchFlags(h.server, repo, [full, small, other, sub]), [0, 0, 0, 1]);
      const report = ok(await reg.getVulnReport(repo, full));
      assert.equal(String(report.reportGeneration), "2");
      const added = summary(report).filter((m) => m[0] === "CVE-2024-0008");
      assert.deepEqual(added, [
        ["CVE-2024-0008", "libssl3", "NOT_FIXED", [], "UNKNOWN"],
        ["CVE-2024-0008", "openssl", "NOT_FIXED", [], "UNKNOWN"],
      ]);
    });

    it("marks images when metadata a report shows changes, not for EPSS alone", async () => {
      const db = h.server.lading.store.db;
      await db.updateTable("image_scans").set({ rematch: 0 }).execute();
      const epss = { score: 0.5, percentile: 0.9, date: "2024-05-01" };
      await writeVulnerabilities(db, [{ id: "CVE-2024-0001", epss }], emptySummary());
      assert.deepEqual(await rematchFlags(h.server, repo, [full, small, other, sub]), [0, 0, 0, 0]);
      const critical = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H";
      await writeVulnerabilities(
        db,
        [{ id: "CVE-2024-0005", severities: [{ type: "CVSS_V3", score: critical }] }],
        emptySummary(),
      );
      // busybox, whose advisory names CVE-2024-0005, is in full and small.
      assert.deepEqual(await rematchFlags(h.server, repo, [full, small, other, sub]), [1, 1, 0, 0]);
      assert.deepEqual(await computeReport(db, { repoUid: repo, digest: small }), {
        generation: 2,
      });
      assert.deepEqual(summary(ok(await reg.getVulnReport(repo, small))), [
        ["CVE-2024-0005", "busybox", "NOT_FIXED", [], "CRITICAL"],
      ]);
    });
  },
  { scanImages: "false" },
);
