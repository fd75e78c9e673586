import assert from "node:assert/strict";
import { before, it } from "node:test";
import {
  ensurePublicAdvisoriesGroup,
  importFeed,
  importFormats,
} from "../../src/vulnerabilities/index.ts";
import { generateAdvisoryDocuments } from "../support/advisory-documents.ts";
import { advisoryYaml, detectedThenFixed } from "../support/advisory-yaml.ts";
import { failed, type Loose, matrix, ok, timestamp, violations } from "../support/matrix.ts";
import { type SecurityApi, securityApi } from "../support/security-api.ts";

const ids = {
  a1: "CGA-2222-3333-4444",
  a2: "CGA-5555-6666-7777",
  a3: "CGA-8888-9999-cccc",
  b1: "CGA-ffff-gggg-hhhh",
  b2: "CGA-jjjj-mmmm-pppp",
  c1: "CGA-qqqq-rrrr-vvvv",
  p1: "CGA-wwww-xxxx-2345",
};

/** An advisory imported only by the last test. */
const laterId = "CGA-xxxx-3333-wwww";

/** acme's own advisories: three packages, every kind of latest event among them. */
const acmeDocuments = [
  {
    name: "openssl.advisories.yaml",
    content: advisoryYaml("openssl", [
      {
        id: ids.a1,
        aliases: ["CVE-2024-0001", "GHSA-2345-6789-cfgh"],
        events: detectedThenFixed("2024-01-01T00:00:00Z", "2024-01-05T10:00:00Z", "3.1.4-r1"),
      },
      {
        id: ids.a2,
        aliases: ["CVE-2024-0002"],
        events: [
          { timestamp: "2024-02-01T00:00:00Z", type: "detection", data: { type: "manual" } },
          {
            timestamp: "2024-02-03T00:00:00Z",
            type: "false-positive-determination",
            data: { type: "vulnerable-code-not-in-execution-path", note: "not reachable" },
          },
        ],
      },
      {
        id: ids.a3,
        aliases: ["CVE-2024-0003"],
        events: [
          {
            timestamp: "2024-03-01T00:00:00Z",
            type: "detection",
            data: {
              type: "nvdapi",
              data: { cpeSearched: "cpe:2.3:a:openssl", cpeFound: "cpe:2.3:a:openssl:openssl" },
            },
          },
          {
            timestamp: "2024-03-02T00:00:00Z",
            type: "true-positive-determination",
            data: { note: "affected" },
          },
        ],
      },
    ]),
  },
  {
    name: "curl.advisories.yaml",
    content: advisoryYaml("curl", [
      {
        id: ids.b1,
        aliases: ["CVE-2024-0101"],
        events: [
          { timestamp: "2024-01-10T00:00:00Z", type: "detection", data: { type: "manual" } },
          {
            timestamp: "2024-01-11T00:00:00Z",
            type: "pending-upstream-fix",
            data: { note: "waiting" },
          },
        ],
      },
      {
        id: ids.b2,
        aliases: ["GHSA-xxxx-wwww-vvvv"],
        events: [
          { timestamp: "2024-01-12T00:00:00Z", type: "detection", data: { type: "manual" } },
          { timestamp: "2024-01-13T00:00:00Z", type: "fix-not-planned", data: { note: "EOL" } },
        ],
      },
    ]),
  },
  {
    name: "curl-8.advisories.yaml",
    content: advisoryYaml("curl-8", [
      {
        id: ids.c1,
        aliases: ["CVE-2024-0101"],
        events: detectedThenFixed("2024-01-10T00:00:00Z", "2024-01-20T00:00:00Z", "8.5.0-r0"),
      },
    ]),
  },
];

matrix("Advisories", (h) => {
  let api: SecurityApi;
  let org = "";
  let team = "";

  const list = async (params: Record<string, string | number | boolean | string[]>) =>
    ok(await api.listAdvisories(params));
  const advisoryIds = (body: Loose) => (body.advisories ?? []).map((a: Loose) => a.advisoryId);

  before(async () => {
    api = securityApi(h.transport, h.server.apiUrl, h.server.org.token);
    org = h.server.org.groupUid;
    team = ok(await h.api.create("groups", org, { name: "team" })).uid as string;
    const imported = ok(
      await api.importAdvisories({
        parent: org,
        format: "IMPORT_FORMAT_ADVISORIES",
        documents: acmeDocuments.slice(0, 2),
      }),
    );
    assert.deepEqual(imported.rejections ?? [], []);
    assert.equal(imported.created, "5");
    ok(
      await api.importAdvisories({
        parent: team,
        format: "IMPORT_FORMAT_ADVISORIES",
        documents: acmeDocuments.slice(2),
      }),
    );
    const db = h.server.lading.store.db;
    const publicUid = await ensurePublicAdvisoriesGroup(db);
    await importFeed(
      db,
      { parentUid: publicUid, source: "advisories", author: "import:advisories" },
      importFormats.advisories.parser,
      [
        {
          file: "zlib.advisories.yaml",
          text: advisoryYaml("zlib", [
            {
              id: ids.p1,
              aliases: ["CVE-2024-0001"],
              events: detectedThenFixed("2024-01-02T00:00:00Z", "2024-01-06T00:00:00Z", "1.3-r1"),
            },
          ]),
        },
      ],
      { finish: true },
    );
  });

  it("lists every readable advisory in advisory_id order with a total count", async () => {
    const body = await list({});
    assert.deepEqual(advisoryIds(body), Object.values(ids).sort());
    assert.equal(body.totalCount, "7");
    const a1 = body.advisories.find((a: Loose) => a.advisoryId === ids.a1);
    assert.match(a1.uid, new RegExp(`^${org}/[0-9a-f]{16}$`));
    assert.equal(a1.artifactName, "openssl");
    assert.equal(a1.artifactType, "apk");
    assert.equal(a1.componentName, "github.com/example/lib");
    assert.equal(a1.componentType, "go-module");
    assert.equal(a1.componentLocation, "/usr/bin/pkg");
    assert.deepEqual(a1.aliases, ["CVE-2024-0001", "GHSA-2345-6789-cfgh"]);
    assert.match(a1.createTime, timestamp);
    assert.equal(a1.latestEventType, "EVENT_TYPE_FIXED");
    assert.equal(a1.events.length, 2);
    assert.equal(a1.events[0].detection.scanv1.componentName, "github.com/example/lib");
    assert.equal(a1.events[1].fixed.fixedVersion, "3.1.4-r1");
    assert.equal(a1.events[1].createTime, "2024-01-05T10:00:00.000Z");
    assert.match(a1.events[1].uid, new RegExp(`^${a1.uid}/[0-9a-f]{16}$`));
  });

  it("gets an advisory by uid with its typed events", async () => {
    const a2 = (await list({ advisory_ids: [ids.a2] })).advisories[0];
    const got = ok(await api.getAdvisory(a2.uid));
    assert.deepEqual(got, a2);
    assert.deepEqual(got.events[1].falsePositiveDetermination, {
      type: "TYPE_VULNERABLE_CODE_NOT_IN_EXECUTION_PATH",
      note: "not reachable",
    });
    const a3 = (await list({ advisory_ids: [ids.a3] })).advisories[0];
    assert.deepEqual(a3.events[0].detection.nvdapi, {
      cpeSearched: "cpe:2.3:a:openssl",
      cpeFound: "cpe:2.3:a:openssl:openssl",
    });
    assert.equal(a3.events[1].truePositiveDetermination.note, "affected");
    const missing = failed(await api.getAdvisory(`${org}/0123456789abcdef`));
    assert.equal(missing.code, 5);
    for (const bad of ["not-a-uid", `${org}/XYZ`]) {
      const invalid = failed(await api.getAdvisory(bad));
      assert.equal(invalid.code, 3, bad);
      assert.deepEqual(
        violations(invalid).map((v) => v.field),
        ["uid"],
      );
    }
  });

  it("filters by artifact names, repeated or comma-separated", async () => {
    assert.deepEqual(
      advisoryIds(await list({ artifact_names: ["curl"] })),
      [ids.b1, ids.b2].sort(),
    );
    const both = [ids.a1, ids.a2, ids.a3, ids.b1, ids.b2].sort();
    assert.deepEqual(advisoryIds(await list({ artifact_names: ["curl", "openssl"] })), both);
    assert.deepEqual(advisoryIds(await list({ artifact_names: ["curl,openssl"] })), both);
    assert.equal((await list({ artifact_names: ["curl,openssl"] })).totalCount, "5");
  });

  it("filters by advisory ids and refuses ids that are not CGA ids", async () => {
    assert.deepEqual(advisoryIds(await list({ advisory_ids: [`${ids.a1},${ids.c1}`] })), [
      ids.a1,
      ids.c1,
    ]);
    assert.deepEqual(advisoryIds(await list({ advisory_ids: [ids.a1, ids.c1] })), [ids.a1, ids.c1]);
    for (const bad of ["CVE-2024-0001", "CGA-aaaa-bbbb-cccc", "cga-2222-3333-4444"]) {
      const result = failed(await api.listAdvisories({ advisory_ids: [bad] }));
      assert.equal(result.code, 3, bad);
      assert.deepEqual(
        violations(result).map((v) => v.field),
        ["advisory_ids"],
      );
    }
  });

  it("filters by aliases, component names, event types and the latest event type", async () => {
    assert.deepEqual(
      advisoryIds(await list({ aliases: ["CVE-2024-0001"] })),
      [ids.a1, ids.p1].sort(),
    );
    assert.deepEqual(
      advisoryIds(await list({ aliases: ["GHSA-xxxx-wwww-vvvv,CVE-2024-0003"] })),
      [ids.a3, ids.b2].sort(),
    );
    assert.deepEqual(
      advisoryIds(await list({ component_names: ["github.com/example/lib"] })),
      [ids.a1, ids.c1, ids.p1].sort(),
    );
    assert.deepEqual(
      advisoryIds(
        await list({
          event_types: [
            "EVENT_TYPE_FALSE_POSITIVE_DETERMINATION",
            "EVENT_TYPE_PENDING_UPSTREAM_FIX",
          ],
        }),
      ),
      [ids.a2, ids.b1].sort(),
    );
    assert.deepEqual(advisoryIds(await list({ event_types: ["EVENT_TYPE_DETECTION"] })).length, 7);
    assert.deepEqual(
      advisoryIds(await list({ latest_event_type: "EVENT_TYPE_FIXED" })),
      [ids.a1, ids.c1, ids.p1].sort(),
    );
    assert.deepEqual(advisoryIds(await list({ latest_event_type: "EVENT_TYPE_FIX_NOT_PLANNED" })), [
      ids.b2,
    ]);
    assert.deepEqual(advisoryIds(await list({ latest_event_type: "EVENT_TYPE_DETECTION" })), []);
  });

  it("filters by artifact type and architecture", async () => {
    assert.equal((await list({ artifact_types: ["apk"] })).totalCount, "7");
    assert.deepEqual(advisoryIds(await list({ artifact_types: ["image,library"] })), []);
    assert.deepEqual(advisoryIds(await list({ artifact_architectures: ["x86_64"] })), []);
  });

  it("searches artifact, component and aliases case-insensitively with query", async () => {
    assert.deepEqual(advisoryIds(await list({ query: "OpenSS" })), [ids.a1, ids.a2, ids.a3].sort());
    assert.deepEqual(advisoryIds(await list({ query: "ghsa-xxxx" })), [ids.b2]);
    assert.deepEqual(
      advisoryIds(await list({ query: "EXAMPLE/LIB" })),
      [ids.a1, ids.c1, ids.p1].sort(),
    );
    assert.deepEqual(advisoryIds(await list({ query: "%" })), []);
    assert.deepEqual(advisoryIds(await list({ query: "_" })), []);
    const long = failed(await api.listAdvisories({ query: "x".repeat(257) }));
    assert.deepEqual(
      violations(long).map((v) => v.field),
      ["query"],
    );
  });

  it("scopes with uidp.descendants_of and combines filters", async () => {
    assert.deepEqual(advisoryIds(await list({ "uidp.descendants_of": team })), [ids.c1]);
    assert.deepEqual(
      advisoryIds(await list({ "uidp.descendants_of": org, query: "curl" })),
      [ids.b1, ids.b2, ids.c1].sort(),
    );
    assert.deepEqual(
      advisoryIds(
        await list({ artifact_names: ["openssl"], latest_event_type: "EVENT_TYPE_FIXED" }),
      ),
      [ids.a1],
    );
  });

  it("pages across filters in every order, with skip", async () => {
    for (const order of [
      "advisory_id",
      "advisory_id desc",
      "name",
      "name desc",
      "created_at",
      "update_time desc",
    ]) {
      const all = advisoryIds(await list({ order_by: order, query: "c", page_size: 200 }));
      assert.ok(all.length >= 5, order);
      const seen: string[] = [];
      let token = "";
      do {
        const page = await list({
          order_by: order,
          query: "c",
          page_size: 2,
          ...(token ? { page_token: token } : {}),
        });
        assert.equal(page.totalCount, String(all.length));
        seen.push(...advisoryIds(page));
        token = page.nextPageToken ?? "";
      } while (token);
      assert.deepEqual(seen, all, order);
      const skipped = await list({ order_by: order, query: "c", page_size: 2, skip: 3 });
      assert.deepEqual(advisoryIds(skipped), all.slice(3, 5));
      assert.equal(skipped.skipped, 3);
    }
    const names = (await list({ order_by: "name" })).advisories.map((a: Loose) => a.artifactName);
    assert.deepEqual(names, [...names].sort());
    const page = await list({ page_size: 2, artifact_names: ["openssl"] });
    const other = failed(
      await api.listAdvisories({
        page_size: 2,
        artifact_names: ["curl"],
        page_token: page.nextPageToken,
      }),
    );
    assert.deepEqual(
      violations(other).map((v) => v.field),
      ["page_token"],
    );
    const badOrder = failed(await api.listAdvisories({ order_by: "severity" }));
    assert.deepEqual(
      violations(badOrder).map((v) => v.field),
      ["order_by"],
    );
  });

  it("keeps another organisation's advisories out of reach, and public ones readable", async () => {
    const { bootstrapOrganisation } = await import("../../src/app/index.ts");
    const globex = await bootstrapOrganisation(h.server.lading.store.db, "globex");
    const outsider = securityApi(
      h.transport,
      h.server.apiUrl,
      await h.server.token(globex.identityUid),
    );
    const seen = ok(await outsider.listAdvisories({}));
    assert.deepEqual(advisoryIds(seen), [ids.p1]);
    const a1 = (await list({ advisory_ids: [ids.a1] })).advisories[0];
    assert.equal(failed(await outsider.getAdvisory(a1.uid)).code, 5);
    const p1 = seen.advisories[0];
    assert.deepEqual(ok(await outsider.getAdvisory(p1.uid)).advisoryId, ids.p1);
    const denied = failed(
      await outsider.importAdvisories({
        parent: org,
        format: "IMPORT_FORMAT_ADVISORIES",
        documents: acmeDocuments,
      }),
    );
    assert.equal(denied.code, 5);
    const anonymous = securityApi(h.transport, h.server.apiUrl, undefined);
    assert.equal(failed(await anonymous.listAdvisories({})).code, 16);
    assert.equal(failed(await anonymous.getAdvisory(a1.uid)).code, 16);
    const documents = ok(await anonymous.listDocuments({ id: "openssl" }));
    assert.deepEqual(documents.documents ?? [], [], "documents answer from public advisories only");
    const byAlias = ok(await anonymous.listDocuments({ cves: ["CVE-2024-0001"] }));
    assert.deepEqual(
      (byAlias.documents ?? []).map((d: Loose) => d.id),
      ["zlib"],
      "an organisation's advisory with the same CVE stays hidden",
    );
  });

  it("lets a viewer read but not import, and a publisher import", async () => {
    const roles = Object.fromEntries(
      (ok(await h.api.list("roles", { page_size: 200 })).roles as Loose[]).map((r) => [
        r.name,
        r.uid,
      ]),
    );
    const person = async (name: string, role: string) => {
      const identity = ok(await h.api.create("identities", org, { name }));
      ok(
        await h.api.create("roleBindings", org, {
          identityUid: identity.uid,
          roleUid: roles[role],
        }),
      );
      return securityApi(
        h.transport,
        h.server.apiUrl,
        await h.server.token(identity.uid as string),
      );
    };
    const viewer = await person("reader", "viewer");
    assert.equal(ok(await viewer.listAdvisories({})).totalCount, "7");
    const denied = failed(
      await viewer.importAdvisories({
        parent: org,
        format: "IMPORT_FORMAT_ADVISORIES",
        documents: acmeDocuments.slice(0, 1),
      }),
    );
    assert.equal(denied.code, 7);
    const publisher = await person("ci", "advisories.publisher");
    const again = ok(
      await publisher.importAdvisories({
        parent: org,
        format: "IMPORT_FORMAT_ADVISORIES",
        documents: acmeDocuments.slice(0, 2),
      }),
    );
    assert.equal(again.unchanged, "5");
  });

  it("keeps query totals exact right after an import changes the matches", async () => {
    const before = Number((await list({ query: "zlib-ng" })).totalCount);
    // The first query loads the in-memory search copy in the background; let it finish.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(Number((await list({ query: "zlib-ng" })).totalCount), before);
    ok(
      await api.importAdvisories({
        parent: org,
        format: "IMPORT_FORMAT_ADVISORIES",
        documents: [
          {
            name: "zlib-ng.advisories.yaml",
            content: advisoryYaml("zlib-ng", [
              {
                id: laterId,
                aliases: ["CVE-2024-0901"],
                events: detectedThenFixed(
                  "2024-02-01T00:00:00Z",
                  "2024-02-02T00:00:00Z",
                  "2.2.0-r0",
                ),
              },
            ]),
          },
        ],
      }),
    );
    const after = await list({ query: "zlib-ng" });
    assert.equal(Number(after.totalCount), before + 1);
    assert.deepEqual(advisoryIds(after), [laterId]);
  });

  it("takes an import of over 1,000 advisories in one call (statistics refreshed after the commit)", async () => {
    const sub = ok(await h.api.create("groups", org, { name: `bulk-${h.transport}` }))
      .uid as string;
    const documents = generateAdvisoryDocuments(1100, 21).map((d) => ({
      name: `${d.name}.advisories.yaml`,
      content: d.text,
    }));
    const imported = ok(
      await api.importAdvisories({ parent: sub, format: "IMPORT_FORMAT_ADVISORIES", documents }),
    );
    assert.deepEqual(imported.rejections ?? [], []);
    assert.ok(Number(imported.created) >= 1000, `created ${imported.created}`);
    const listed = await list({ "uidp.descendants_of": sub, page_size: 1 });
    assert.equal(listed.totalCount, imported.created);
  });
});
