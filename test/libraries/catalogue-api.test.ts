import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { bootstrapOrganisation } from "../../src/app/index.ts";
import { artifactUid } from "../../src/libraries/index.ts";
import { sharedDataDir } from "../../src/versions/testdata/shared-data.ts";
import {
  ensurePublicAdvisoriesGroup,
  importFeed,
  importFormats,
} from "../../src/vulnerabilities/index.ts";
import { restCall, transports } from "../support/api-client.ts";
import { holder } from "../support/iam-fixtures.ts";
import { catalogueApi, seedVersion, seedVersions } from "../support/libraries.ts";
import { failed, type Loose, ok, violations } from "../support/matrix.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const ghsaDir = sharedDataDir("osv");
const noData = ghsaDir ? false : "shared/data/osv is not beside this checkout";
const ghsa = (id: string) => readFileSync(join(ghsaDir ?? "", "ghsa", `${id}.json`), "utf8");

/** An OSV record of our own, in the shape of the GitHub ones, for an organisation's advisories. */
function osvRecord(id: string, ecosystem: string, name: string, introduced: string, fixed: string) {
  return JSON.stringify({
    schema_version: "1.4.0",
    id,
    modified: "2024-06-01T00:00:00Z",
    published: "2024-05-01T00:00:00Z",
    aliases: [],
    summary: "test record",
    affected: [
      {
        package: { ecosystem, name },
        ranges: [{ type: "ECOSYSTEM", events: [{ introduced }, { fixed }] }],
      },
    ],
  });
}

const pythonVersions = ["3.1.4", "1.0rc1", "3.1.3", "1.0", "1.0.post1", "1.1", "2.11.3"];
const npmVersions = ["3.0.2", "3.0.3", "1.0.0-beta.2", "1.0.0", "1.0.0-beta.10", "2.3.2"];
const mavenVersions = [
  "2.15.0",
  "2.14.0",
  "2.0",
  "2.0-alpha-1",
  "2.0-SNAPSHOT",
  "2.0-rc1",
  "2.0-sp1",
  "2.13.0",
  "1.4",
];

for (const pair of registryPairs) {
  describe(`Libraries catalogue [${pair.store}+${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let acme = "";
    let other = { groupUid: "", token: "" };
    let publicUid = "";
    const ids = { jinja: "", braces: "", scoped: "", commons: "", secret: "", open: "" };

    before(async () => {
      r = await startRegistryServer(pair);
      const server = r.server;
      const db = server.lading.store.db;
      acme = server.org.groupUid;
      publicUid = r.publicOrg.groupUid;
      const boot = await bootstrapOrganisation(db, "other");
      other = { groupUid: boot.groupUid, token: await server.token(boot.identityUid) };
      const seed = { orgUid: acme };
      ids.jinja = (
        await seedVersions(
          server,
          {
            ...seed,
            ecosystem: "python",
            name: "jinja2",
            displayName: "Jinja2",
            description: "A very fast template engine",
          },
          pythonVersions,
        )
      )[0].artifactUid;
      for (const name of ["alpha-tools", "beta-tools", "zeta"]) {
        await seedVersion(server, { ...seed, ecosystem: "python", name, version: "1.0" });
      }
      ids.braces = (
        await seedVersions(
          server,
          { ...seed, ecosystem: "javascript", name: "braces" },
          npmVersions,
        )
      )[0].artifactUid;
      ids.scoped = (
        await seedVersion(server, {
          ...seed,
          ecosystem: "javascript",
          name: "@acme/ui",
          version: "0.1.0",
        })
      ).artifactUid;
      ids.commons = (
        await seedVersions(
          server,
          { ...seed, ecosystem: "java", name: "commons-io:commons-io" },
          mavenVersions,
        )
      )[0].artifactUid;
      ids.secret = (
        await seedVersion(server, {
          orgUid: other.groupUid,
          ecosystem: "python",
          name: "jinja2-secret",
          version: "1.0",
        })
      ).artifactUid;
      ids.open = (
        await seedVersion(server, {
          orgUid: publicUid,
          ecosystem: "python",
          name: "public-pkg",
          version: "2.0",
        })
      ).artifactUid;
      if (ghsaDir) {
        const load = (parentUid: string, file: string, text: string) =>
          importFeed(
            db,
            { parentUid, source: "osv", author: "import:osv" },
            importFormats.osv.parser,
            [{ file, text }],
            {
              finish: false,
            },
          );
        const open = await ensurePublicAdvisoriesGroup(db);
        for (const id of ["GHSA-h75v-3vvj-5mfj", "GHSA-grv7-fg5c-xmjg", "GHSA-78wr-2p64-hpwj"]) {
          await load(open, `${id}.json`, ghsa(id));
        }
        // acme's own advisory applies to acme's Jinja2; the other organisation's never does.
        await load(acme, "ACME-1.json", osvRecord("ACME-1", "PyPI", "jinja2", "3.1.4", "3.1.5"));
        await load(
          other.groupUid,
          "OTHER-1.json",
          osvRecord("OTHER-1", "PyPI", "Jinja2", "0", "9.0"),
        );
      }
    });
    after(() => r?.close());

    it("artifact uids are one path segment: <ecosystem>:<organisation>:<name>", () => {
      assert.equal(ids.jinja, artifactUid("python", acme, "jinja2"));
      assert.equal(ids.scoped, `javascript:${acme}:@acme~ui`);
    });

    for (const transport of transports) {
      describe(transport, () => {
        const api = (token?: string) =>
          catalogueApi(transport, r.server.apiUrl, token ?? r.server.org.token);

        it("lists the visible artifacts of the asked ecosystems in name order, total_count as an int64", async () => {
          const body = ok(await api().listArtifacts({ ecosystems: ["ECOSYSTEM_PYTHON"] }));
          assert.deepEqual(
            body.artifacts.map((a: Loose) => a.name),
            ["alpha-tools", "beta-tools", "jinja2", "public-pkg", "zeta"],
          );
          assert.equal(body.totalCount, "5");
          const jinja = body.artifacts.find((a: Loose) => a.name === "jinja2");
          assert.equal(jinja.uid, ids.jinja);
          assert.equal(jinja.displayName, "Jinja2");
          assert.equal(jinja.ecosystem, "ECOSYSTEM_PYTHON");
          assert.equal(jinja.latestVersion, "3.1.4");
          assert.equal(jinja.versionCount, 7);
          assert.equal(jinja.description, "A very fast template engine");
          assert.equal(jinja.parent, acme);
          const both = ok(
            await api().listArtifacts({
              ecosystems: ["ECOSYSTEM_JAVASCRIPT", "ECOSYSTEM_JAVA"],
              order_by: "name desc",
            }),
          );
          assert.deepEqual(
            both.artifacts.map((a: Loose) => [a.name, a.ecosystem]),
            [
              ["commons-io:commons-io", "ECOSYSTEM_JAVA"],
              ["braces", "ECOSYSTEM_JAVASCRIPT"],
              ["@acme/ui", "ECOSYSTEM_JAVASCRIPT"],
            ],
          );
          const own = ok(
            await api().listArtifacts({ ecosystems: ["ECOSYSTEM_PYTHON"], parent: publicUid }),
          );
          assert.deepEqual(
            own.artifacts.map((a: Loose) => a.name),
            ["public-pkg"],
          );
        });

        it("pages with next_page_token and skip; total_count stays exact; a token is bound to its filters", async () => {
          const seen: string[] = [];
          let token = "";
          do {
            const page = ok(
              await api().listArtifacts({
                ecosystems: ["ECOSYSTEM_PYTHON"],
                page_size: 2,
                page_token: token,
              }),
            );
            assert.equal(page.totalCount, "5");
            seen.push(...page.artifacts.map((a: Loose) => a.name));
            token = page.nextPageToken ?? "";
            if (token) {
              const other = failed(
                await api().listArtifacts({ ecosystems: ["ECOSYSTEM_JAVA"], page_token: token }),
              );
              assert.equal(other.code, 3);
              assert.ok(violations(other).some((v) => v.field === "page_token"));
            }
          } while (token);
          assert.deepEqual(seen, ["alpha-tools", "beta-tools", "jinja2", "public-pkg", "zeta"]);
          const skipped = ok(
            await api().listArtifacts({ ecosystems: ["ECOSYSTEM_PYTHON"], page_size: 1, skip: 2 }),
          );
          assert.deepEqual(
            skipped.artifacts.map((a: Loose) => a.name),
            ["jinja2"],
          );
          assert.equal(skipped.skipped, 2);
        });

        it("query is a case-insensitive substring of name, display name or description, never a pattern", async () => {
          const names = async (query: string) =>
            ok(
              await api().listArtifacts({ ecosystems: ["ECOSYSTEM_PYTHON"], query }),
            ).artifacts?.map((a: Loose) => a.name) ?? [];
          assert.deepEqual(await names("TOOLS"), ["alpha-tools", "beta-tools"]);
          assert.deepEqual(await names("Template ENGINE"), ["jinja2"]);
          assert.deepEqual(await names("ja2"), ["jinja2"]);
          assert.deepEqual(await names("%"), []);
          assert.deepEqual(await names("_"), []);
          const counted = ok(
            await api().listArtifacts({ ecosystems: ["ECOSYSTEM_PYTHON"], query: "tools" }),
          );
          assert.equal(counted.totalCount, "2");
        });

        it("refuses a missing or unspecified ecosystem, filters it cannot honour, a long query (400)", async () => {
          for (const [params, field] of [
            [{}, "ecosystems"],
            [{ ecosystems: ["ECOSYSTEM_UNSPECIFIED"] }, "ecosystems"],
            [{ ecosystems: ["ECOSYSTEM_PYTHON"], remediated: true }, "remediated"],
            [{ ecosystems: ["ECOSYSTEM_PYTHON"], cuda_version: "12.1" }, "cuda_version"],
            [{ ecosystems: ["ECOSYSTEM_PYTHON"], query: "x".repeat(257) }, "query"],
            [{ ecosystems: ["ECOSYSTEM_PYTHON"], parent: "acme" }, "parent"],
            [{ ecosystems: ["ECOSYSTEM_PYTHON"], order_by: "size" }, "order_by"],
          ] as const) {
            const refused = failed(await api().listArtifacts(params as never));
            assert.equal(refused.code, 3, JSON.stringify(params));
            if (refused.httpStatus) assert.equal(refused.httpStatus, 400);
            assert.ok(
              violations(refused).some((v) => v.field === field),
              `${JSON.stringify(params)}: ${JSON.stringify(violations(refused))}`,
            );
          }
          const count = failed(await api().count({}));
          assert.equal(count.code, 3);
          assert.deepEqual(
            violations(count).map((v) => v.field),
            ["ecosystems"],
          );
        });

        it("lists versions newest first in each ecosystem's order, pages them, sizes as int64", async () => {
          const versions = async (id: string, params = {}) =>
            ok(await api().listVersions(id, params)).artifactVersions.map((v: Loose) => v.version);
          assert.deepEqual(await versions(ids.jinja), [
            "3.1.4",
            "3.1.3",
            "2.11.3",
            "1.1",
            "1.0.post1",
            "1.0",
            "1.0rc1",
          ]);
          assert.deepEqual(await versions(ids.braces), [
            "3.0.3",
            "3.0.2",
            "2.3.2",
            "1.0.0",
            "1.0.0-beta.10",
            "1.0.0-beta.2",
          ]);
          assert.deepEqual(await versions(ids.commons), [
            "2.15.0",
            "2.14.0",
            "2.13.0",
            "2.0-sp1",
            "2.0",
            "2.0-SNAPSHOT",
            "2.0-rc1",
            "2.0-alpha-1",
            "1.4",
          ]);
          assert.deepEqual(await versions(ids.jinja, { order_by: "version" }), [
            "1.0rc1",
            "1.0",
            "1.0.post1",
            "1.1",
            "2.11.3",
            "3.1.3",
            "3.1.4",
          ]);
          const pages: string[] = [];
          let token = "";
          do {
            const page = ok(
              await api().listVersions(ids.commons, { page_size: 3, page_token: token }),
            );
            assert.equal(page.totalCount, "9");
            pages.push(...page.artifactVersions.map((v: Loose) => v.version));
            token = page.nextPageToken ?? "";
          } while (token);
          assert.deepEqual(pages, await versions(ids.commons));
          const [first] = ok(await api().listVersions(ids.scoped)).artifactVersions;
          assert.equal(first.uid, `${ids.scoped}@0.1.0`);
          assert.equal(first.name, "@acme/ui");
          assert.equal(first.purl, "pkg:npm/%40acme/ui@0.1.0");
          assert.equal(first.sizeBytes, String(Buffer.byteLength("@acme/ui 0.1.0")));
          assert.equal(typeof first.sizeBytes, "string");
        });

        it("an unknown, malformed or invisible artifact: 404 / 400, another organisation's like a typo", async () => {
          const missing = failed(await api().listVersions(artifactUid("python", acme, "nope")));
          assert.equal(missing.code, 5);
          if (missing.httpStatus) assert.equal(missing.httpStatus, 404);
          const foreign = failed(await api().listVersions(ids.secret));
          assert.equal(foreign.code, 5);
          assert.equal(
            foreign.message.replace(ids.secret, "X"),
            missing.message.replace(artifactUid("python", acme, "nope"), "X"),
          );
          const bad = failed(await api().listVersions("ruby:abc:x"));
          assert.equal(bad.code, 3);
          assert.deepEqual(
            violations(bad).map((v) => v.field),
            ["artifact_id"],
          );
          assert.equal(
            failed(await api().listVersions(ids.secret.replace("python", "java"))).code,
            5,
          );
        });

        // REST paths only: registered once, on the REST run.
        if (transport === "rest")
          it("REST takes the id with its colons and @ unescaped; /artifacts/count is never an id", async () => {
            const get = (path: string) =>
              restCall(r.server.apiUrl, r.server.org.token, "GET", path);
            const raw = ok(await get(`/libraries/v2/artifacts/${ids.scoped}/versions`));
            assert.equal(raw.artifactVersions[0].version, "0.1.0");
            const count = ok(await get("/libraries/v2/artifacts/count?ecosystems=ECOSYSTEM_JAVA"));
            assert.deepEqual(count.counts, [{ ecosystem: "ECOSYSTEM_JAVA", totalCount: "1" }]);
            assert.equal(
              failed(await get("/libraries/v2/artifacts/count/versions")).httpStatus,
              400,
            );
            assert.equal(
              failed(await get(`/libraries/v2/artifacts/${ids.jinja}/x/versions`)).httpStatus,
              404,
            );
          });

        it("another organisation sees its own and the public artifacts, never acme's", async () => {
          const theirs = ok(
            await api(other.token).listArtifacts({
              ecosystems: ["ECOSYSTEM_PYTHON", "ECOSYSTEM_JAVA"],
            }),
          );
          assert.deepEqual(
            theirs.artifacts.map((a: Loose) => a.name),
            ["jinja2-secret", "public-pkg"],
          );
          assert.equal(theirs.totalCount, "2");
          assert.equal(
            ok(await api(other.token).listVersions(ids.open)).artifactVersions.length,
            1,
          );
          assert.equal(failed(await api(other.token).listVersions(ids.jinja)).code, 5);
          const counts = ok(
            await api(other.token).count({ ecosystems: ["ECOSYSTEM_PYTHON", "ECOSYSTEM_JAVA"] }),
          );
          assert.deepEqual(counts.counts, [
            { ecosystem: "ECOSYSTEM_PYTHON", totalCount: "2" },
            { ecosystem: "ECOSYSTEM_JAVA", totalCount: "0" },
          ]);
        });

        it("without libraries.artifacts.list only the public organisation's artifacts show", async () => {
          const bare = await holder(r.server, acme, ["repo.list"]);
          const seen = ok(
            await api(bare.token).listArtifacts({ ecosystems: ["ECOSYSTEM_PYTHON"] }),
          );
          assert.deepEqual(
            seen.artifacts.map((a: Loose) => a.name),
            ["public-pkg"],
          );
          assert.equal(failed(await api(bare.token).listVersions(ids.jinja)).code, 5);
          const reader = await holder(r.server, acme, ["libraries.artifacts.list"]);
          assert.equal(
            ok(await api(reader.token).listArtifacts({ ecosystems: ["ECOSYSTEM_PYTHON"] }))
              .totalCount,
            "5",
          );
          const anonymous = failed(
            await catalogueApi(transport, r.server.apiUrl, undefined).listArtifacts({
              ecosystems: ["ECOSYSTEM_PYTHON"],
            }),
          );
          assert.equal(anonymous.code, 16);
        });

        it("counts the visible artifacts per asked ecosystem, in the order asked", async () => {
          const body = ok(
            await api().count({
              ecosystems: [
                "ECOSYSTEM_JAVA",
                "ECOSYSTEM_PYTHON",
                "ECOSYSTEM_JAVASCRIPT",
                "ECOSYSTEM_PYTHON",
              ],
            }),
          );
          assert.deepEqual(body.counts, [
            { ecosystem: "ECOSYSTEM_JAVA", totalCount: "1" },
            { ecosystem: "ECOSYSTEM_PYTHON", totalCount: "5" },
            { ecosystem: "ECOSYSTEM_JAVASCRIPT", totalCount: "2" },
          ]);
        });

        it("each version lists the advisories affecting it and those it fixes (real GHSA records)", {
          skip: noData,
        }, async () => {
          const advisoriesOf = async (id: string) => {
            const out = new Map<string, [string, string, string][]>();
            for (const v of ok(await api().listVersions(id)).artifactVersions) {
              out.set(
                v.version,
                (v.advisories ?? [])
                  .map((a: Loose) => [
                    (a.aliases as string[]).find(
                      (x) =>
                        x.startsWith("GHSA-") || x.startsWith("ACME-") || x.startsWith("OTHER-"),
                    ),
                    a.status,
                    a.fixedVersion ?? "",
                  ])
                  .sort(),
              );
            }
            return out;
          };
          const jinja = await advisoriesOf(ids.jinja);
          const jinjaFix = ["GHSA-h75v-3vvj-5mfj", "ADVISORY_STATUS_FIXED", "3.1.4"];
          const jinjaHit = ["GHSA-h75v-3vvj-5mfj", "ADVISORY_STATUS_AFFECTED", "3.1.4"];
          // 3.1.4 fixes the GitHub record and is the first version of acme's own.
          assert.deepEqual(jinja.get("3.1.4"), [
            ["ACME-1", "ADVISORY_STATUS_AFFECTED", "3.1.5"],
            jinjaFix,
          ]);
          assert.deepEqual(jinja.get("3.1.3"), [jinjaHit]);
          assert.deepEqual(jinja.get("1.0rc1"), [jinjaHit]);
          const braces = await advisoriesOf(ids.braces);
          assert.deepEqual(braces.get("3.0.3"), [
            ["GHSA-grv7-fg5c-xmjg", "ADVISORY_STATUS_FIXED", "3.0.3"],
          ]);
          assert.deepEqual(braces.get("1.0.0-beta.2"), [
            ["GHSA-grv7-fg5c-xmjg", "ADVISORY_STATUS_AFFECTED", "3.0.3"],
          ]);
          const commons = await advisoriesOf(ids.commons);
          // The GitHub record affects 2.0 up to 2.14.0: 1.4 and the 2.0 pre-releases are before it.
          assert.deepEqual(commons.get("1.4"), []);
          assert.deepEqual(commons.get("2.0-rc1"), []);
          assert.deepEqual(commons.get("2.13.0"), [
            ["GHSA-78wr-2p64-hpwj", "ADVISORY_STATUS_AFFECTED", "2.14.0"],
          ]);
          assert.deepEqual(commons.get("2.14.0"), [
            ["GHSA-78wr-2p64-hpwj", "ADVISORY_STATUS_FIXED", "2.14.0"],
          ]);
          // Only the version that carries a fix says so; later ones do not repeat it.
          assert.deepEqual(commons.get("2.15.0"), []);
          const [v] = ok(
            await api().listVersions(ids.jinja, { page_size: 1, skip: 1 }),
          ).artifactVersions;
          assert.equal(v.purl, "pkg:pypi/jinja2@3.1.3");
          assert.ok(v.advisories[0].aliases.includes("CVE-2024-34064"));
          assert.match(v.advisories[0].advisoryId, /^CGA-/);
        });
      });
    }
  });
}
