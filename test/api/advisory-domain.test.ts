import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { before, it } from "node:test";
import { pathToFileURL } from "node:url";
import { sharedDataDir } from "../../src/versions/testdata/shared-data.ts";
import {
  ensurePublicAdvisoriesGroup,
  type ImportFormatName,
  importFeed,
  importFormats,
} from "../../src/vulnerabilities/index.ts";
import { advisoryYaml, detectedThenFixed } from "../support/advisory-yaml.ts";
import { failed, type Loose, matrix, ok, violations } from "../support/matrix.ts";
import { putImage, registryApi } from "../support/registry-api.ts";
import { type SecurityApi, securityApi } from "../support/security-api.ts";

const vulnmetaDir = sharedDataDir("vulnmeta");
if (!vulnmetaDir) throw new Error("the shared sample data (shared/data/vulnmeta) is missing");
const vulnmeta = pathToFileURL(`${vulnmetaDir}/`);

matrix("Advisory domain", (h) => {
  let api: SecurityApi;
  let anonymous: SecurityApi;

  const load = async (format: ImportFormatName, file: string, text: string, parentUid = "") => {
    const db = h.server.lading.store.db;
    const parent = parentUid || (await ensurePublicAdvisoriesGroup(db));
    return importFeed(
      db,
      { parentUid: parent, source: format, author: `import:${format}` },
      importFormats[format].parser,
      [{ file, text }],
      {
        finish: false,
      },
    );
  };

  before(async () => {
    api = securityApi(h.transport, h.server.apiUrl, h.server.org.token);
    anonymous = securityApi(h.transport, h.server.apiUrl, undefined);
    await load(
      "nvd",
      "nvd-cve-2.0-single.json",
      readFileSync(new URL("nvd-cve-2.0-single.json", vulnmeta), "utf8"),
    );
    await load(
      "nvd",
      "nvd-cve-2.0-page.json",
      readFileSync(new URL("nvd-cve-2.0-page.json", vulnmeta), "utf8"),
    );
    await load(
      "kev",
      "kev.json",
      readFileSync(new URL("cisa-kev-catalog-excerpt.json", vulnmeta), "utf8"),
    );
    await load(
      "epss",
      "epss.csv",
      readFileSync(new URL("epss-scores-excerpt.csv", vulnmeta), "utf8"),
    );
    await load(
      "kev",
      "kev-extra.json",
      JSON.stringify({
        title: "test",
        catalogVersion: "2025.02.20",
        dateReleased: "2025-02-20T00:00:00.000Z",
        count: 1,
        vulnerabilities: [
          {
            cveID: "CVE-2022-1576",
            vendorProject: "Example",
            product: "Example",
            vulnerabilityName: "Example flaw",
            dateAdded: "2025-02-01",
            shortDescription: "x",
            requiredAction: "patch",
            dueDate: "2025-02-22",
            knownRansomwareCampaignUse: "Unknown",
            notes: "",
            cwes: ["CWE-352"],
          },
        ],
      }),
    );
    await load(
      "epss",
      "epss-extra.csv",
      "#model_version:v2025.03.14,score_date:2025-03-01T00:00:00+0000\ncve,epss,percentile\nCVE-2022-1576,0.12345,0.95\n",
    );
    await load(
      "advisories",
      "nginx.advisories.yaml",
      advisoryYaml("nginx", [
        {
          id: "CGA-2222-cccc-2222",
          aliases: ["CVE-2022-1576"],
          events: detectedThenFixed("2024-06-01T08:00:00Z", "2024-06-03T09:00:00Z", "1.25.3-r1"),
        },
        {
          id: "CGA-3333-cccc-3333",
          aliases: ["GHSA-cfgh-jmpq-rvwx"],
          events: [
            { timestamp: "2024-06-01T00:00:00Z", type: "detection", data: { type: "manual" } },
            {
              timestamp: "2024-06-04T23:59:59Z",
              type: "false-positive-determination",
              data: { type: "component-vulnerability-mismatch", note: "n/a" },
            },
          ],
        },
        {
          id: "CGA-4444-cccc-4444",
          aliases: ["CVE-2024-0404"],
          events: [
            { timestamp: "2024-06-03T00:00:00Z", type: "detection", data: { type: "manual" } },
          ],
        },
      ]),
    );
    await load(
      "advisories",
      "nginx-mainline.advisories.yaml",
      advisoryYaml("nginx-mainline", [
        {
          id: "CGA-5555-cccc-5555",
          aliases: ["CVE-2024-0505"],
          events: detectedThenFixed("2024-06-01T00:00:00Z", "2024-06-03T00:00:00Z", "1.27.0-r0"),
        },
      ]),
    );
    // An OSV record that says GHSA-2345-6789-cfgh is CVE-2024-0777, and an advisory that names
    // only the GHSA: a lookup by the CVE must still find the advisory (aliases both ways).
    await load(
      "osv",
      "GHSA-2345-6789-cfgh.json",
      JSON.stringify({
        schema_version: "1.4.0",
        id: "GHSA-2345-6789-cfgh",
        modified: "2024-06-01T00:00:00Z",
        aliases: ["CVE-2024-0777"],
        summary: "example",
      }),
    );
    await load(
      "advisories",
      "zstd.advisories.yaml",
      advisoryYaml("zstd", [
        {
          id: "CGA-7777-cccc-7777",
          aliases: ["GHSA-2345-6789-cfgh"],
          events: detectedThenFixed("2024-06-01T00:00:00Z", "2024-06-02T00:00:00Z", "1.5.6-r0"),
        },
      ]),
    );
    await load(
      "advisories",
      "nginxfoo.advisories.yaml",
      advisoryYaml("nginxfoo", [
        {
          id: "CGA-6666-cccc-6666",
          aliases: ["CVE-2024-0606"],
          events: detectedThenFixed("2024-06-01T00:00:00Z", "2024-06-03T00:00:00Z", "1.0-r0"),
        },
      ]),
    );
  });

  it("reads a CVE's metadata without credentials: CVSS with base score, CWEs, references, KEV and EPSS", async () => {
    const body = ok(await anonymous.listMetadata({ id: "CVE-2022-1576" }));
    assert.equal(body.totalCount, "1");
    const m = body.vulnerabilityMetadata[0];
    assert.equal(m.id, "CVE-2022-1576");
    assert.ok(m.details.length > 20);
    const v3 = m.severities.find((s: Loose) => s.type === "TYPE_CVSS_V3");
    assert.match(v3.score, /^CVSS:3\.1\//);
    assert.equal(typeof v3.baseScore, "number");
    assert.ok(v3.baseScore > 0);
    assert.ok(m.severities.some((s: Loose) => s.type === "TYPE_CVSS_V2"));
    assert.ok(m.cwes.length > 0 && m.cwes.every((c: string) => /^CWE-\d+$/.test(c)));
    assert.ok(
      m.references.length > 0 &&
        m.references.every((r: Loose) => r.url.startsWith("http") && r.type),
    );
    assert.equal(m.kev, true);
    assert.equal(m.kevDateAdded, "2025-02-01");
    assert.equal(m.epssScore, 0.12345);
    assert.equal(m.epssPercentile, 0.95);
    assert.equal(m.epssDate, "2025-03-01");
  });

  it("lists metadata by ids, repeated or comma-separated, in id order with pages and skip", async () => {
    const kevIds = ["CVE-2025-0108", "CVE-2024-53704", "CVE-2024-57727"];
    const body = ok(await anonymous.listMetadata({ ids: [kevIds.join(",")] }));
    assert.deepEqual(
      body.vulnerabilityMetadata.map((m: Loose) => m.id),
      [...kevIds].sort(),
    );
    assert.ok(body.vulnerabilityMetadata.every((m: Loose) => m.kev === true));
    const epss = ok(await anonymous.listMetadata({ ids: ["CVE-1999-0001", "CVE-1999-0002"] }));
    assert.deepEqual(
      epss.vulnerabilityMetadata.map((m: Loose) => m.epssScore),
      [0.00383, 0.01328],
    );
    const all = ok(await anonymous.listMetadata({ page_size: 200 }));
    const ids = all.vulnerabilityMetadata.map((m: Loose) => m.id);
    assert.deepEqual(ids, [...ids].sort());
    assert.ok(Number(all.totalCount) >= 38 + 3 + 5);
    const seen: string[] = [];
    let token = "";
    do {
      const page = ok(
        await anonymous.listMetadata({
          page_size: 7,
          order_by: "id desc",
          ...(token ? { page_token: token } : {}),
        }),
      );
      seen.push(...page.vulnerabilityMetadata.map((m: Loose) => m.id));
      token = page.nextPageToken ?? "";
    } while (token);
    assert.deepEqual(seen, [...ids].reverse());
    const skipped = ok(await anonymous.listMetadata({ page_size: 2, skip: 3 }));
    assert.deepEqual(
      skipped.vulnerabilityMetadata.map((m: Loose) => m.id),
      ids.slice(3, 5),
    );
    const many = Array.from({ length: 1001 }, (_, i) => `X-${i}`);
    const tooMany = failed(await anonymous.listMetadata({ ids: [many.join(",")] }));
    assert.deepEqual(
      violations(tooMany).map((v) => v.field),
      ["ids"],
    );
    const longId = failed(await anonymous.listMetadata({ id: "X".repeat(257) }));
    assert.deepEqual(
      violations(longId).map((v) => v.field),
      ["id"],
    );
    const longIds = failed(await anonymous.listMetadata({ ids: ["CVE-2020-1", "X".repeat(257)] }));
    assert.deepEqual(
      violations(longIds).map((v) => v.field),
      ["ids"],
    );
  });

  it("lists documents by package and by CVE without credentials", async () => {
    const byPackage = ok(await anonymous.listDocuments({ id: "nginx" }));
    assert.equal(byPackage.documents.length, 1);
    const doc = byPackage.documents[0];
    assert.equal(doc.id, "nginx");
    assert.deepEqual(
      doc.advisories.map((a: Loose) => a.id),
      ["CGA-2222-cccc-2222", "CGA-3333-cccc-3333", "CGA-4444-cccc-4444"],
    );
    assert.equal(doc.advisories[0].packageNamespace, "wolfi");
    assert.equal(doc.advisories[0].events[1].fixed.fixedVersion, "1.25.3-r1");
    assert.equal(doc.advisories[0].events[1].timestamp, "2024-06-03T09:00:00.000Z");
    const byCve = ok(await anonymous.listDocuments({ cves: ["CVE-2024-0505,CVE-2024-0606"] }));
    assert.deepEqual(
      byCve.documents.map((d: Loose) => d.id),
      ["nginx-mainline", "nginxfoo"],
    );
    const both = ok(await anonymous.listDocuments({ id: "nginx", cves: ["CVE-2024-0404"] }));
    assert.deepEqual(
      both.documents[0].advisories.map((a: Loose) => a.id),
      ["CGA-4444-cccc-4444"],
    );
    assert.equal(failed(await anonymous.listDocuments({})).code, 3);
    const longCve = failed(await anonymous.listDocuments({ cves: ["X".repeat(257)] }));
    assert.deepEqual(
      violations(longCve).map((v) => v.field),
      ["cves"],
    );
    const viaAlias = ok(await anonymous.listDocuments({ cves: ["CVE-2024-0777"] }));
    assert.deepEqual(
      viaAlias.documents.map((d: Loose) => d.id),
      ["zstd"],
      "a CVE finds the advisory of its GHSA",
    );
    const metadata = ok(await anonymous.listMetadata({ id: "CVE-2024-0777" }));
    assert.equal(metadata.totalCount, "0", "an alias alone makes no metadata record");
    const ghsa = ok(await anonymous.listMetadata({ id: "GHSA-2345-6789-cfgh" }));
    assert.deepEqual(ghsa.vulnerabilityMetadata[0].aliases, ["CVE-2024-0777"]);
  });

  it("reports resolved advisories day by day for an image's packages", async () => {
    const org = h.server.org.groupUid;
    const reg = registryApi(h.transport, h.server.apiUrl, h.server.org.token);
    const repo = ok(await reg.createRepo(org, { name: "web/nginx" })).uid;
    const { digest } = await putImage(h.server, repo, "amd64", [1]);
    ok(await reg.createTag(repo, { name: "latest", digest }));
    const body = ok(
      await api.listResolved({
        image_refs: ["acme/web/nginx"],
        start_time: "2024-06-02",
        end_time: "2024-06-05",
      }),
    );
    const days = body.resolvedVulnsReports;
    assert.deepEqual(
      days.map((d: Loose) => d.date),
      ["2024-06-02", "2024-06-03", "2024-06-04", "2024-06-05"],
    );
    assert.deepEqual(days[0].resolvedVulns ?? [], []);
    assert.deepEqual(
      days[1].resolvedVulns.map((v: Loose) => v.id),
      ["CGA-5555-cccc-5555", "CGA-2222-cccc-2222"],
    );
    assert.deepEqual(days[1].resolvedVulns[1].aliases, ["CVE-2022-1576"]);
    assert.ok(
      days[1].resolvedVulns[1].cvssSeverities.some(
        (s: Loose) => s.type === "TYPE_CVSS_V3" && s.baseScore > 0,
      ),
    );
    assert.equal(days[1].resolvedVulns[1].resolution, "EVENT_TYPE_FIXED");
    assert.deepEqual(
      days[2].resolvedVulns.map((v: Loose) => [v.id, v.resolution]),
      [["CGA-3333-cccc-3333", "EVENT_TYPE_FALSE_POSITIVE_DETERMINATION"]],
    );
    assert.deepEqual(days[3].resolvedVulns ?? [], []);
    const tagged = ok(
      await api.listResolved({
        image_refs: ["acme/web/nginx:latest"],
        start_time: "2024-06-03T12:00:00Z",
        end_time: "2024-06-03",
      }),
    );
    assert.equal(tagged.resolvedVulnsReports.length, 1);
    assert.equal(
      failed(
        await api.listResolved({
          image_refs: ["acme/web/nginx:nope"],
          start_time: "2024-06-02",
          end_time: "2024-06-05",
        }),
      ).code,
      5,
    );
    assert.equal(
      failed(
        await api.listResolved({
          image_refs: ["acme/missing"],
          start_time: "2024-06-02",
          end_time: "2024-06-05",
        }),
      ).code,
      5,
    );
    const bad = failed(
      await api.listResolved({
        image_refs: ["acme/web/nginx"],
        start_time: "2024-06-05",
        end_time: "2024-06-02",
      }),
    );
    assert.deepEqual(
      violations(bad).map((v) => v.field),
      ["end_time"],
    );
    const long = failed(
      await api.listResolved({
        image_refs: ["acme/web/nginx"],
        start_time: "2023-01-01",
        end_time: "2024-06-02",
      }),
    );
    assert.deepEqual(
      violations(long).map((v) => v.field),
      ["end_time"],
    );
    const none = failed(
      await api.listResolved({ start_time: "2024-06-02", end_time: "2024-06-05" }),
    );
    assert.deepEqual(
      violations(none).map((v) => v.field),
      ["image_refs"],
    );
    assert.equal(
      failed(
        await anonymous.listResolved({
          image_refs: ["acme/web/nginx"],
          start_time: "2024-06-02",
          end_time: "2024-06-05",
        }),
      ).code,
      16,
    );
    const { bootstrapOrganisation } = await import("../../src/app/index.ts");
    const globex = await bootstrapOrganisation(h.server.lading.store.db, `globex-${h.transport}`);
    const outsider = securityApi(
      h.transport,
      h.server.apiUrl,
      await h.server.token(globex.identityUid),
    );
    assert.equal(
      failed(
        await outsider.listResolved({
          image_refs: ["acme/web/nginx"],
          start_time: "2024-06-02",
          end_time: "2024-06-05",
        }),
      ).code,
      5,
      "another organisation's repo is not found",
    );
  });
});
