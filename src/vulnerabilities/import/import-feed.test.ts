import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { advisoryYaml, detectedThenFixed } from "../../../test/support/advisory-yaml.ts";
import { openTestStore } from "../../../test/support/stores.ts";
import type { MetadataStore } from "../../store/metadata/index.ts";
import { deriveAdvisoryId } from "../feeds/advisory-id.ts";
import type { FeedInput } from "../feeds/feed-records.ts";
import { importFeed } from "./import-feed.ts";
import { importFormats } from "./import-formats.ts";

/** `count` one-advisory documents, as files. */
function documents(count: number): FeedInput[] {
  return Array.from({ length: count }, (_, i) => {
    const name = `pkg-${i}`;
    return {
      file: `${name}.advisories.yaml`,
      text: advisoryYaml(name, [
        {
          id: deriveAdvisoryId(name),
          aliases: [`CVE-2024-${10000 + i}`],
          events: detectedThenFixed("2024-01-01T00:00:00Z", "2024-01-02T00:00:00Z", "1.0-r1"),
        },
      ]),
    };
  });
}

/** Yields `inputs`, then fails as an interrupted run would (a killed process, a read error). */
async function* interruptedAfter(inputs: FeedInput[], count: number): AsyncGenerator<FeedInput> {
  for (const [i, input] of inputs.entries()) {
    if (i === count) throw new Error("interrupted");
    yield input;
  }
}

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`importFeed resumes after an interruption [${kind}]`, () => {
    let store: MetadataStore;
    let close: () => Promise<void>;
    const target = { parentUid: "a".repeat(40), source: "s", author: "t" };
    before(async () => {
      ({ store, close } = await openTestStore(kind));
    });
    after(() => close());

    it("keeps what it wrote, withdraws nothing, and a re-run finishes the work", async () => {
      const inputs = documents(12_000);
      await assert.rejects(
        importFeed(
          store.db,
          target,
          importFormats.advisories.parser,
          interruptedAfter(inputs, 11_000),
          {
            finish: true,
          },
        ),
        /interrupted/,
      );
      const kept = await store.db
        .selectFrom("advisories")
        .select((eb) => eb.fn.countAll<string | number>().as("n"))
        .where("withdrawn_time", "is", null)
        .executeTakeFirstOrThrow();
      assert.equal(Number(kept.n), 10_000, "the batch of 10,000 that committed stays");
      const rerun = await importFeed(store.db, target, importFormats.advisories.parser, inputs, {
        finish: true,
      });
      assert.deepEqual(
        [
          rerun.summary.created,
          rerun.summary.unchanged,
          rerun.summary.withdrawn,
          rerun.summary.rejected,
        ],
        [2_000, 10_000, 0, 0],
      );
    });
  });
}

for (const kind of ["sqlite", "postgres"] as const) {
  describe(`importFeed keeps OSV ranges for matching [${kind}]`, () => {
    let store: MetadataStore;
    let close: () => Promise<void>;
    const target = { parentUid: "b".repeat(40), source: "osv", author: "t" };
    before(async () => {
      ({ store, close } = await openTestStore(kind));
    });
    after(() => close());

    it("stores each package's ranges, and none for advisory documents", async () => {
      const osv = {
        id: "GHSA-2345-6789-cfgh",
        modified: "2024-05-02T00:00:00Z",
        affected: [
          {
            package: { ecosystem: "npm", name: "left-pad" },
            ranges: [{ type: "SEMVER", events: [{ introduced: "1.1.0" }, { fixed: "1.3.0" }] }],
          },
        ],
      };
      await importFeed(
        store.db,
        target,
        importFormats.osv.parser,
        [{ file: "r.json", text: JSON.stringify(osv) }],
        { finish: false },
      );
      const row = await store.db
        .selectFrom("advisories")
        .select(["artifact_name", "affected"])
        .where("parent_uid", "=", target.parentUid)
        .executeTakeFirstOrThrow();
      assert.equal(row.artifact_name, "left-pad");
      assert.deepEqual(JSON.parse(row.affected), [
        {
          package: { ecosystem: "npm", name: "left-pad" },
          ranges: [{ type: "SEMVER", events: [{ introduced: "1.1.0" }, { fixed: "1.3.0" }] }],
        },
      ]);
      await importFeed(
        store.db,
        { ...target, source: "advisories" },
        importFormats.advisories.parser,
        documents(1),
        { finish: false },
      );
      const yaml = await store.db
        .selectFrom("advisories")
        .select("affected")
        .where("source", "=", "advisories")
        .executeTakeFirstOrThrow();
      assert.equal(yaml.affected, "");
    });
  });
}
