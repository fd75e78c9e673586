import assert from "node:assert/strict";
import { before, it } from "node:test";
import { advisoryYaml, detectedThenFixed } from "../support/advisory-yaml.ts";
import { failed, type Loose, matrix, ok, violations } from "../support/matrix.ts";
import { type SecurityApi, securityApi } from "../support/security-api.ts";

const A = "CGA-2222-2222-2222";
const B = "CGA-3333-3333-3333";
const C = "CGA-4444-4444-4444";

const pkg = (name: string, advisories: Parameters<typeof advisoryYaml>[1]) => ({
  name: `${name}.advisories.yaml`,
  content: advisoryYaml(name, advisories),
});
const fixedAdvisory = (id: string, alias: string, version = "1.0-r1") => ({
  id,
  aliases: [alias],
  events: detectedThenFixed("2024-05-01T00:00:00Z", "2024-05-02T00:00:00Z", version),
});

matrix("Advisory imports", (h) => {
  let api: SecurityApi;
  let group = "";
  const run = async (documents: Loose[], extra: Loose = {}) =>
    ok(
      await api.importAdvisories({
        parent: group,
        format: "IMPORT_FORMAT_ADVISORIES",
        source: "ci",
        documents,
        ...extra,
      }),
    );
  const counts = (r: Loose) =>
    [r.created, r.updated, r.withdrawn, r.unchanged, r.rejected].map(Number);
  const byId = async (id: string) =>
    ok(await api.listAdvisories({ advisory_ids: [id], show_withdrawn: true }))
      .advisories?.[0] as Loose;

  /** The live counters (unfiltered totals) agree with a count that scans (a filtered one). */
  async function assertCountsAgree() {
    const scope = { "uidp.descendants_of": group };
    const counted = ok(await api.listAdvisories({ ...scope, page_size: 1 })).totalCount;
    const scanned = ok(
      await api.listAdvisories({ ...scope, page_size: 1, event_types: ["EVENT_TYPE_DETECTION"] }),
    ).totalCount;
    assert.equal(counted, scanned);
    const all = ok(await api.listAdvisories({ page_size: 1 })).totalCount;
    const allScanned = ok(
      await api.listAdvisories({ page_size: 1, event_types: ["EVENT_TYPE_DETECTION"] }),
    ).totalCount;
    assert.equal(all, allScanned);
  }

  before(async () => {
    api = securityApi(h.transport, h.server.apiUrl, h.server.org.token);
    group = ok(await h.api.create("groups", h.server.org.groupUid, { name: "security" }))
      .uid as string;
  });

  it("imports, then imports the same documents again with zero changes", async () => {
    const docs = [
      pkg("zlib", [fixedAdvisory(A, "CVE-2024-1000"), fixedAdvisory(B, "CVE-2024-1001")]),
      pkg("xz", [fixedAdvisory(C, "CVE-2024-3094")]),
    ];
    const first = await run(docs);
    assert.deepEqual(counts(first), [3, 0, 0, 0, 0]);
    assert.deepEqual([...first.documents].sort(), ["xz", "zlib"]);
    const before = await byId(A);
    const second = await run(docs);
    assert.deepEqual(counts(second), [0, 0, 0, 3, 0]);
    assert.equal((await byId(A)).updateTime, before.updateTime);
  });

  it("updates changed advisories in place; updateTime moves only for them", async () => {
    const a = await byId(A);
    const b = await byId(B);
    await new Promise((r) => setTimeout(r, 5));
    const changed = await run(
      [
        pkg("zlib", [
          fixedAdvisory(A, "CVE-2024-1000", "1.0-r2"),
          fixedAdvisory(B, "CVE-2024-1001"),
        ]),
      ],
      {
        finish: false,
      },
    );
    assert.deepEqual(counts(changed), [0, 1, 0, 1, 0]);
    const a2 = await byId(A);
    assert.equal(a2.uid, a.uid);
    assert.equal(a2.createTime, a.createTime);
    assert.ok(a2.updateTime > a.updateTime);
    assert.equal(a2.events[1].fixed.fixedVersion, "1.0-r2");
    assert.equal((await byId(B)).updateTime, b.updateTime);
  });

  it("withdraws an advisory that disappears from its document, and restores it when it returns", async () => {
    const gone = await run([pkg("zlib", [fixedAdvisory(A, "CVE-2024-1000", "1.0-r2")])]);
    assert.deepEqual(counts(gone), [0, 0, 1, 1, 0]);
    const b = await byId(B);
    assert.ok(b.deleteTime, "withdrawn advisories carry deleteTime");
    assert.match(b.withdrawnReason, /no longer in zlib/);
    const listed = ok(await api.listAdvisories({ "uidp.descendants_of": group })).advisories.map(
      (x: Loose) => x.advisoryId,
    );
    assert.ok(!listed.includes(B), "withdrawn advisories are left out of lists by default");
    assert.equal(ok(await api.getAdvisory(b.uid)).advisoryId, B, "and still readable by uid");
    const back = await run([
      pkg("zlib", [fixedAdvisory(A, "CVE-2024-1000", "1.0-r2"), fixedAdvisory(B, "CVE-2024-1001")]),
    ]);
    assert.deepEqual(counts(back), [0, 1, 0, 1, 0]);
    assert.equal((await byId(B)).deleteTime, undefined);
  });

  it("with finish, withdraws the documents that no call of the run imported", async () => {
    const part = await run([
      pkg("zlib", [fixedAdvisory(A, "CVE-2024-1000", "1.0-r2"), fixedAdvisory(B, "CVE-2024-1001")]),
    ]);
    const end = await run([], { finish: true, knownDocuments: part.documents });
    assert.deepEqual(counts(end), [0, 0, 1, 0, 0]);
    assert.match((await byId(C)).withdrawnReason, /document xz no longer in source ci/);
    assert.equal((await byId(A)).deleteTime, undefined);
    await assertCountsAgree();
    const again = await run([], { finish: true, knownDocuments: part.documents });
    assert.deepEqual(counts(again), [0, 0, 0, 0, 0], "a withdrawn advisory is withdrawn once");
  });

  it("reports malformed records with file and position and imports the rest", async () => {
    const result = await run(
      [
        pkg("good", [fixedAdvisory("CGA-5555-5555-5555", "CVE-2024-2000")]),
        { name: "broken.advisories.yaml", content: "schema-version: 2\npackage: [\n" },
        {
          name: "future.advisories.yaml",
          content: advisoryYaml(
            "future",
            [fixedAdvisory("CGA-6666-6666-6666", "CVE-2024-2001")],
            "3",
          ),
        },
        pkg("mixed", [
          fixedAdvisory("CGA-7777-7777-7777", "CVE-2024-2002"),
          fixedAdvisory("CGA-bad", "CVE-2024-2003"),
        ]),
      ],
      { finish: false },
    );
    assert.equal(Number(result.created), 2);
    assert.equal(Number(result.rejected), 3);
    const files = result.rejections.map((r: Loose) => r.file).sort();
    assert.deepEqual(files, [
      "broken.advisories.yaml",
      "future.advisories.yaml",
      "mixed.advisories.yaml",
    ]);
    for (const r of result.rejections) {
      assert.ok(r.position, "every rejection names a position");
      assert.ok(r.reason, "and a reason");
    }
    assert.match(
      result.rejections.find((r: Loose) => r.file === "future.advisories.yaml").reason,
      /newer/,
    );
  });

  it("validates the request", async () => {
    const bad = failed(
      await api.importAdvisories({
        parent: "nope",
        format: "IMPORT_FORMAT_UNSPECIFIED",
        source: "Bad Source!",
        documents: [],
      }),
    );
    assert.equal(bad.code, 3);
    assert.deepEqual(
      violations(bad)
        .map((v) => v.field)
        .sort(),
      ["documents", "format", "parent", "source"],
    );
  });
});
