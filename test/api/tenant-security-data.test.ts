import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { bootstrapOrganisation } from "../../src/app/index.ts";
import { builtInRoleUid } from "../../src/auth/index.ts";
import { ImageInsightsService } from "../../src/gen/lading/registry/v2/image_insights_pb.js";
import { publicAdvisoriesGroupUid } from "../../src/vulnerabilities/index.ts";
import { type CliRunner, cliRunner } from "../cli/cli-support.ts";
import { grpcCaller, type Result, restCall } from "../support/api-client.ts";
import { addIdentity, bind } from "../support/iam-fixtures.ts";
import { failed, type Loose, matrix, ok } from "../support/matrix.ts";
import { ociClient } from "../support/oci-client.ts";
import { registryApi } from "../support/registry-api.ts";
import { imageOf, packageFiles, waitFor } from "../support/scan-images.ts";
import { type SecurityApi, securityApi } from "../support/security-api.ts";

/**
 * Shared vulnerability data has one writer (DESIGN §8a): the operator's imports write the
 * metadata everyone reads; an organisation's import (ImportAdvisories) writes its own
 * advisories and a private copy of the metadata it carries, which only it reads. The operator
 * loads CVE-2024-7001 (medium, in KEV); organisation acme then imports, through the API, the
 * same CVE re-described (CVSS 10), a new GHSA aliasing it, and a GHSA of its own. Every read
 * path is asked anonymously, by organisation rival, and by acme.
 */

const cve = "CVE-2024-7001";
/** acme's: aliases the operator's CVE. */
const aliasing = "GHSA-7777-8888-9999";
/** acme's: a new id nothing else names. */
const own = "GHSA-2222-3333-4444";
const medium = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:N/A:N";
const critical = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H";
const publicSummary = "Flask public summary";
const window = { start_time: "2024-06-01", end_time: "2024-06-03" };

const flask = (fixed: string) => [
  {
    package: { ecosystem: "PyPI", name: "flask" },
    ranges: [{ type: "ECOSYSTEM", events: [{ introduced: "0" }, { fixed }] }],
  },
];
const osv = (id: string, fields: Loose) =>
  JSON.stringify({
    schema_version: "1.6.0",
    id,
    published: "2024-06-01T00:00:00Z",
    modified: "2024-06-02T00:00:00Z",
    ...fields,
  });
const severity = (score: string) => [{ type: "CVSS_V3", score }];

const tenantDocuments = [
  {
    name: `${cve}.json`,
    content: osv(cve, {
      summary: "tenant rewrite",
      severity: severity(critical),
      affected: flask("3.0.4"),
    }),
  },
  {
    name: `${aliasing}.json`,
    content: osv(aliasing, {
      aliases: [cve],
      summary: "tenant alias",
      severity: severity(critical),
      affected: flask("3.0.4"),
    }),
  },
  {
    name: `${own}.json`,
    content: osv(own, {
      summary: "tenant only",
      severity: severity(critical),
      affected: flask("3.0.5"),
    }),
  },
];

/**
 * The uids of the advisories acme's import created (read back by acme). Not their advisory
 * ids: an OSV record's derived id depends on its package alone, so the operator's advisory
 * about the same package carries the same one.
 */
let acmeAdvisories: string[] = [];

/** Every string anywhere in `value` that only acme's import put there. */
function tenantTraces(value: unknown): string[] {
  const text = JSON.stringify(value);
  return [
    aliasing,
    own,
    "tenant rewrite",
    "tenant alias",
    "tenant only",
    critical,
    ...acmeAdvisories,
  ].filter((t) => text.includes(t));
}

const scores = (severities: Loose[] | undefined) => (severities ?? []).map((s) => s.score);

matrix("Shared vulnerability data: a tenant's import stays its own", (h) => {
  let work = "";
  let cli: CliRunner;
  let acme: { token: string; org: string; repo: string; digest: string };
  let rival: { token: string; org: string; repo: string; digest: string };
  /** What acme's ImportAdvisories answered. */
  let imported: Loose = {};
  const as = (token: string | undefined): SecurityApi =>
    securityApi(h.transport, h.server.apiUrl, token);
  const vex = (token: string, repo: string, digest: string): Promise<Result> =>
    h.transport === "rest"
      ? restCall(
          h.server.apiUrl,
          token,
          "GET",
          `/registry/v2/images:vex?${new URLSearchParams({ repo, digest })}`,
        )
      : grpcCaller(h.server.apiUrl, token)(ImageInsightsService, "getImageVex", { repo, digest });

  /** Pushes the flask image to `<org>/flask:latest` and waits for its report. */
  async function pushAndScan(orgName: string, identityUid: string, token: string) {
    const server = h.server;
    const pushToken = await server.token(identityUid, {
      audience: server.lading.registryAudience,
    });
    const image = await imageOf([[packageFiles.python]]);
    const digest = await ociClient(server.lading.registryUrl, pushToken).pushImage(
      `${orgName}/flask`,
      "latest",
      image,
    );
    const reg = registryApi(h.transport, server.apiUrl, token);
    const repo = (ok(await reg.listRepos({ name: "flask" })).repos as Loose[])[0].uid as string;
    await waitFor(
      `the report of ${orgName}/flask`,
      async () => {
        const report = await reg.getVulnReport(repo, digest);
        return report.ok ? true : undefined;
      },
      90_000,
    );
    return { repo, digest };
  }

  before(async () => {
    const server = h.server;
    const db = server.lading.store.db;
    work = await mkdtemp(join(tmpdir(), "lading-shared-data-"));
    await writeFile(
      join(work, `${cve}.json`),
      osv(cve, { summary: publicSummary, severity: severity(medium), affected: flask("3.0.4") }),
    );
    await writeFile(
      join(work, "known_exploited_vulnerabilities.json"),
      JSON.stringify({
        catalogVersion: "2024.06.05",
        vulnerabilities: [{ cveID: cve, dateAdded: "2024-06-05" }],
      }),
    );
    cli = await cliRunner();
    const options = server.store.options;
    const store = options.databaseUrl
      ? ["--database-url", options.databaseUrl]
      : ["--data-dir", options.dataDir];
    const admin = await cli.run([
      "admin",
      "import",
      "any",
      work,
      ...store,
      "--api-url",
      server.apiUrl,
    ]);
    assert.equal(admin.code, 0, admin.stderr);

    const acmeOrg = server.org;
    const rivalOrg = await bootstrapOrganisation(db, "rival", { apiUrl: server.apiUrl });
    const rivalToken = await server.token(rivalOrg.identityUid);
    imported = ok(
      await as(acmeOrg.token).importAdvisories({
        parent: acmeOrg.groupUid,
        format: "IMPORT_FORMAT_OSV",
        source: "ci",
        documents: tenantDocuments,
      }),
    );
    assert.equal(Number(imported.rejected), 0, JSON.stringify(imported));
    const listed = ok(
      await as(acmeOrg.token).listAdvisories({ "uidp.descendants_of": acmeOrg.groupUid }),
    ).advisories as Loose[];
    acmeAdvisories = listed.map((a) => a.uid as string);
    assert.equal(acmeAdvisories.length, 3);

    acme = {
      token: acmeOrg.token,
      org: acmeOrg.groupUid,
      ...(await pushAndScan("acme", acmeOrg.identityUid, acmeOrg.token)),
    };
    rival = {
      token: rivalToken,
      org: rivalOrg.groupUid,
      ...(await pushAndScan("rival", rivalOrg.identityUid, rivalToken)),
    };
  });
  after(async () => {
    await cli?.cleanup();
    if (work) await rm(work, { recursive: true, force: true });
  });

  it("the tenant's import creates its own rows and updates none of the operator's", async () => {
    // Three records: each an advisory of acme's and acme's copy of its metadata.
    assert.deepEqual(
      [imported.created, imported.updated, imported.withdrawn].map(Number),
      [6, 0, 0],
      JSON.stringify(imported),
    );
  });

  it("anonymous callers and other organisations read the operator's metadata, unchanged", async () => {
    for (const [who, token] of [
      ["anonymous", undefined],
      ["rival", rival.token],
    ] as const) {
      const [row] = ok(await as(token).listMetadata({ id: cve })).vulnerabilityMetadata as Loose[];
      assert.equal(row.summary, publicSummary, who);
      assert.deepEqual(scores(row.severities), [medium], who);
      assert.equal(row.kev, true, who);
      assert.deepEqual(row.aliases ?? [], [], who);
      const hidden = ok(await as(token).listMetadata({ ids: [aliasing, own] }));
      assert.equal(String(hidden.totalCount), "0", `${who} reads no id acme imported`);
      assert.deepEqual(hidden.vulnerabilityMetadata ?? [], [], who);
      const all = ok(await as(token).listMetadata({}));
      assert.deepEqual(
        (all.vulnerabilityMetadata as Loose[]).map((m) => m.id),
        [cve],
        who,
      );
      assert.equal(String(all.totalCount), "1", who);
      // Naming acme's group does not open its view; naming the public one reads public rows.
      assert.equal(failed(await as(token).listMetadata({ parent: acme.org })).code, 5, who);
      const named = ok(await as(token).listMetadata({ id: cve, parent: publicAdvisoriesGroupUid }));
      assert.equal((named.vulnerabilityMetadata as Loose[])[0].summary, publicSummary, who);
    }
    // Credentials sent to the anonymous method are checked, not ignored.
    assert.equal(failed(await as("not-a-token").listMetadata({ id: cve })).code, 16);
    assert.equal(failed(await as("not-a-token").listDocuments({ cves: [cve] })).code, 16);
  });

  it("the importing organisation reads its copies over the operator's rows", async () => {
    const api = as(acme.token);
    const [row] = ok(await api.listMetadata({ id: cve })).vulnerabilityMetadata as Loose[];
    assert.equal(row.summary, "tenant rewrite");
    assert.deepEqual(scores(row.severities), [critical]);
    assert.equal(row.kev, true, "the operator's KEV entry stays in the organisation's view");
    const mine = ok(await api.listMetadata({ ids: [aliasing, own] }));
    assert.deepEqual(
      (mine.vulnerabilityMetadata as Loose[]).map((m) => [m.id, m.summary]),
      [
        [own, "tenant only"],
        [aliasing, "tenant alias"],
      ],
    );
    const all = ok(await api.listMetadata({ page_size: 2 }));
    assert.equal(String(all.totalCount), "3");
    const next = ok(await api.listMetadata({ page_size: 2, page_token: all.nextPageToken }));
    assert.deepEqual(
      [...(all.vulnerabilityMetadata as Loose[]), ...(next.vulnerabilityMetadata as Loose[])].map(
        (m) => m.id,
      ),
      [cve, own, aliasing],
    );
    const named = ok(await api.listMetadata({ id: own, parent: acme.org }));
    assert.equal((named.vulnerabilityMetadata as Loose[])[0].summary, "tenant only");
  });

  it("advisory lists, alias filters and documents show another organisation nothing of acme's", async () => {
    const api = as(rival.token);
    for (const alias of [aliasing, own]) {
      const found = ok(await api.listAdvisories({ aliases: [alias] }));
      assert.equal(String(found.totalCount), "0", alias);
    }
    assert.equal(String(ok(await api.listAdvisories({ query: "ghsa-" })).totalCount), "0");
    const listed = ok(await api.listAdvisories({ aliases: [cve] })).advisories as Loose[];
    assert.equal(listed.length, 1);
    assert.deepEqual(scores(listed[0].severities), [medium]);
    assert.deepEqual(tenantTraces(listed), []);

    for (const token of [undefined, rival.token, acme.token]) {
      const documents = ok(await as(token).listDocuments({ cves: [cve] })).documents as Loose[];
      assert.equal(documents.length, 1);
      assert.equal(documents[0].advisories.length, 1);
      assert.deepEqual(documents[0].advisories[0].aliases, [cve]);
      for (const id of [aliasing, own]) {
        const none = ok(await as(token).listDocuments({ cves: [id] }));
        assert.deepEqual(none.documents ?? [], [], `documents of ${id}`);
      }
    }
  });

  it("acme lists its own advisories with its own severities, the operator's with the operator's", async () => {
    const api = as(acme.token);
    const listed = ok(await api.listAdvisories({ aliases: [cve] })).advisories as Loose[];
    const byGroup = (inside: boolean) =>
      listed.filter((a) => (a.uid as string).startsWith(`${acme.org}/`) === inside);
    assert.equal(byGroup(false).length, 1);
    assert.deepEqual(scores(byGroup(false)[0].severities), [medium]);
    assert.equal(byGroup(true).length, 2);
    for (const advisory of byGroup(true)) assert.deepEqual(scores(advisory.severities), [critical]);
    assert.equal(String(ok(await api.listAdvisories({ aliases: [own] })).totalCount), "1");
  });

  it("another organisation's vulnerability report uses the operator's metadata only", async () => {
    const reg = registryApi(h.transport, h.server.apiUrl, rival.token);
    const report = ok(await reg.getVulnReport(rival.repo, rival.digest));
    const matches = report.vulnerabilityMatches as Loose[];
    assert.deepEqual(
      matches.map((m) => [m.vulnerability.id, m.vulnerability.severity, m.pkg.name]),
      [[cve, "MEDIUM", "flask"]],
    );
    assert.equal(matches[0].vulnerability.description, publicSummary);
    assert.deepEqual(matches[0].vulnerability.relatedVulnerabilities ?? [], []);
    assert.deepEqual(tenantTraces(report), []);
  });

  it("acme's own report uses its view", async () => {
    const reg = registryApi(h.transport, h.server.apiUrl, acme.token);
    const report = ok(await reg.getVulnReport(acme.repo, acme.digest));
    const matches = report.vulnerabilityMatches as Loose[];
    const byId = new Map(matches.map((m) => [m.vulnerability.id, m.vulnerability]));
    assert.deepEqual([...byId.keys()].sort(), [cve, own]);
    assert.equal(byId.get(cve)?.severity, "CRITICAL");
    assert.equal(byId.get(cve)?.description, "tenant rewrite");
    assert.ok(
      ((byId.get(cve)?.relatedVulnerabilities ?? []) as Loose[]).some((r) => r.id === aliasing),
      "acme's alias relates its GHSA to the CVE in its own report",
    );
  });

  it("resolved reports of another organisation's image hold the operator's advisories only", async () => {
    const days = ok(await as(rival.token).listResolved({ image_refs: ["rival/flask"], ...window }))
      .resolvedVulnsReports as Loose[];
    const resolved = days.flatMap((d) => (d.resolvedVulns ?? []) as Loose[]);
    assert.deepEqual(
      resolved.map((r) => [r.aliases, scores(r.cvssSeverities)]),
      [[[cve], [medium]]],
    );
    assert.deepEqual(tenantTraces(days), []);
    const mine = ok(await as(acme.token).listResolved({ image_refs: ["acme/flask"], ...window }))
      .resolvedVulnsReports as Loose[];
    const ids = mine.flatMap((d) => (d.resolvedVulns ?? []) as Loose[]).map((r) => r.aliases);
    assert.equal(ids.length, 4, JSON.stringify(ids));
    assert.ok(ids.some((a) => a.includes(own)));
  });

  it("the VEX of another organisation's image names nothing of acme's", async () => {
    const document = ok(await vex(rival.token, rival.repo, rival.digest));
    assert.ok(JSON.stringify(document).includes(cve));
    assert.deepEqual(tenantTraces(document), []);
    const mine = ok(await vex(acme.token, acme.repo, acme.digest));
    assert.ok(JSON.stringify(mine).includes(own));
  });

  it("a caller of both organisations reads rival's image without acme's advisories or metadata", async () => {
    const server = h.server;
    const both = await addIdentity(server, "");
    for (const org of [acme.org, rival.org]) {
      await bind(server, both.uid, org, builtInRoleUid("viewer"));
    }
    const document = ok(await vex(both.token, rival.repo, rival.digest));
    assert.ok(JSON.stringify(document).includes(cve));
    assert.deepEqual(tenantTraces(document), [], "the VEX of rival's image");
    const days = ok(await as(both.token).listResolved({ image_refs: ["rival/flask"], ...window }))
      .resolvedVulnsReports as Loose[];
    assert.equal(days.flatMap((d) => d.resolvedVulns ?? []).length, 1);
    assert.deepEqual(tenantTraces(days), [], "the resolved report of rival's image");
    const report = ok(
      await registryApi(h.transport, server.apiUrl, both.token).getVulnReport(
        rival.repo,
        rival.digest,
      ),
    );
    assert.deepEqual(tenantTraces(report), [], "the vulnerability report of rival's image");
    // Its own view of the metadata is that of the organisation it names, else the public one.
    const api = as(both.token);
    const summary = async (parent?: string) =>
      (
        ok(await api.listMetadata({ id: cve, ...(parent ? { parent } : {}) }))
          .vulnerabilityMetadata as Loose[]
      )[0].summary;
    assert.equal(await summary(), publicSummary);
    assert.equal(await summary(rival.org), publicSummary);
    assert.equal(await summary(acme.org), "tenant rewrite");
  });

  it("a tenant's import re-matches its own images only", async () => {
    const db = h.server.lading.store.db;
    const state = async (image: { repo: string; digest: string }) => {
      const row = await db
        .selectFrom("image_scans")
        .select(["rematch", "generation"])
        .where("repo_uid", "=", image.repo)
        .where("digest", "=", image.digest)
        .executeTakeFirstOrThrow();
      return { rematch: Number(row.rematch), generation: Number(row.generation) };
    };
    const [acmeBefore, rivalBefore] = [await state(acme), await state(rival)];
    // The import marks in its own transaction; the scanner may re-match at once, so a marked
    // image shows either the mark or a newer report.
    const touched = (now: { rematch: number; generation: number }, then: typeof now) =>
      now.rematch === 1 || now.generation > then.generation;
    const more = {
      name: "GHSA-5555-6666-7777.json",
      content: osv("GHSA-5555-6666-7777", {
        summary: "tenant later",
        severity: severity(critical),
        affected: flask("3.0.6"),
      }),
    };
    ok(
      await as(acme.token).importAdvisories({
        parent: acme.org,
        format: "IMPORT_FORMAT_OSV",
        source: "later",
        documents: [more],
      }),
    );
    assert.ok(touched(await state(acme), acmeBefore), "acme's image is re-matched");
    assert.ok(!touched(await state(rival), rivalBefore), "rival's image is left alone");
  });
});
