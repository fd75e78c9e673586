import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, it } from "node:test";
import { sharedDataDir } from "../../src/versions/testdata/shared-data.ts";
import {
  ensurePublicAdvisoriesGroup,
  type ImportFormatName,
  importFeed,
  importFormats,
} from "../../src/vulnerabilities/index.ts";
import { advisoryYaml, detectedThenFixed } from "../support/advisory-yaml.ts";
import { type Loose, matrix, ok } from "../support/matrix.ts";
import { putImage, registryApi } from "../support/registry-api.ts";
import { type SecurityApi, securityApi } from "../support/security-api.ts";

const osvDir = sharedDataDir("osv");
if (!osvDir) throw new Error("the shared sample data (shared/data/osv) is missing");
const ghsa = (id: string) => readFileSync(join(osvDir, "ghsa", `${id}.json`), "utf8");

const v31High = "CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:N/I:N/A:H";
const commonsV4 = "CVSS:4.0/AV:N/AC:L/AT:N/PR:N/UI:N/VC:N/VI:N/VA:H/SC:N/SI:N/SA:N";
const old = "CVSS:3.0/AV:N/AC:L/PR:N/UI:N/S:C/C:H/I:H/A:H";

/**
 * OSV records carry CVSS vectors only: the import computes each base score and records the
 * CVSS version it is of, and every answer that shows severities shows them (docs/security-data.md).
 */
matrix("Base scores from CVSS vectors", (h) => {
  let api: SecurityApi;

  const load = async (format: ImportFormatName, file: string, text: string) => {
    const db = h.server.lading.store.db;
    const parentUid = await ensurePublicAdvisoriesGroup(db);
    return importFeed(
      db,
      { parentUid, source: format, author: `import:${format}` },
      importFormats[format].parser,
      [{ file, text }],
      { finish: false },
    );
  };

  before(async () => {
    api = securityApi(h.transport, h.server.apiUrl, h.server.org.token);
    for (const id of ["GHSA-grv7-fg5c-xmjg", "GHSA-78wr-2p64-hpwj"]) {
      await load("osv", `${id}.json`, ghsa(id));
    }
    await load(
      "advisories",
      "scored.advisories.yaml",
      advisoryYaml("scored", [
        {
          id: "CGA-2222-hhhh-2222",
          aliases: ["GHSA-grv7-fg5c-xmjg"],
          events: detectedThenFixed("2024-06-01T00:00:00Z", "2024-06-02T00:00:00Z", "3.0.3-r0"),
        },
      ]),
    );
    // A row as a Lading that did not score vectors on import left it.
    await h.server.lading.store.db
      .insertInto("vulnerabilities")
      .values({
        id: "CVE-2099-0001",
        summary: "",
        details: "",
        aliases: "[]",
        references: "[]",
        severities: JSON.stringify([{ type: "CVSS_V3", score: old }]),
        cwes: "[]",
        published: "",
        modified: "",
        kev: "",
        epss_score: null,
        epss_percentile: null,
        epss_date: "",
        withdrawn_time: null,
        withdrawn_reason: "",
        create_time: "2024-01-01T00:00:00.000Z",
        update_time: "2024-01-01T00:00:00.000Z",
      })
      .onConflict((oc) => oc.column("id").doNothing())
      .execute();
  });

  it("stores the base score and CVSS version computed from an OSV vector", async () => {
    const row = await h.server.lading.store.db
      .selectFrom("vulnerabilities")
      .select("severities")
      .where("id", "=", "GHSA-78wr-2p64-hpwj")
      .executeTakeFirstOrThrow();
    assert.deepEqual(JSON.parse(row.severities), [
      { type: "CVSS_V3", score: v31High, baseScore: 7.5, version: "3.1" },
      { type: "CVSS_V4", score: commonsV4, baseScore: 8.7, version: "4.0" },
    ]);
  });

  it("shows them in a record's metadata", async () => {
    const body = ok(
      await api.listMetadata({ ids: ["GHSA-grv7-fg5c-xmjg", "GHSA-78wr-2p64-hpwj"] }),
    );
    const byId = Object.fromEntries(
      body.vulnerabilityMetadata.map((m: Loose) => [m.id, m.severities]),
    );
    assert.deepEqual(byId["GHSA-grv7-fg5c-xmjg"], [
      { type: "TYPE_CVSS_V3", score: v31High, baseScore: 7.5, version: "3.1" },
    ]);
    assert.deepEqual(byId["GHSA-78wr-2p64-hpwj"], [
      { type: "TYPE_CVSS_V3", score: v31High, baseScore: 7.5, version: "3.1" },
      { type: "TYPE_CVSS_V4", score: commonsV4, baseScore: 8.7, version: "4.0" },
    ]);
  });

  it("scores a row stored without a score when it is read, with no re-import", async () => {
    const body = ok(await api.listMetadata({ id: "CVE-2099-0001" }));
    assert.deepEqual(body.vulnerabilityMetadata[0].severities, [
      { type: "TYPE_CVSS_V3", score: old, baseScore: 10, version: "3.0" },
    ]);
  });

  it("shows them on the advisories that name the record", async () => {
    const body = ok(await api.listAdvisories({ artifact_names: ["scored"] }));
    assert.deepEqual(body.advisories[0].severities, [
      { type: "TYPE_CVSS_V3", score: v31High, baseScore: 7.5, version: "3.1" },
    ]);
  });

  it("shows them in the resolved report of an image", async () => {
    const reg = registryApi(h.transport, h.server.apiUrl, h.server.org.token);
    const repo = ok(await reg.createRepo(h.server.org.groupUid, { name: "scored" })).uid;
    const { digest } = await putImage(h.server, repo, "amd64", [1]);
    ok(await reg.createTag(repo, { name: "latest", digest }));
    const body = ok(
      await api.listResolved({
        image_refs: ["acme/scored"],
        start_time: "2024-06-02",
        end_time: "2024-06-02",
      }),
    );
    const [day] = body.resolvedVulnsReports;
    assert.equal(day.resolvedVulns[0].id, "CGA-2222-hhhh-2222");
    assert.deepEqual(day.resolvedVulns[0].cvssSeverities, [
      { type: "TYPE_CVSS_V3", score: v31High, baseScore: 7.5, version: "3.1" },
    ]);
  });
});
