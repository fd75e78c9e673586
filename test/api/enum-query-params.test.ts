import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import {
  ensurePublicAdvisoriesGroup,
  importFeed,
  importFormats,
} from "../../src/vulnerabilities/index.ts";
import { advisoryYaml, detectedThenFixed } from "../support/advisory-yaml.ts";
import { restCall } from "../support/api-client.ts";
import { seedVersion } from "../support/libraries.ts";
import { type Loose, ok, violations } from "../support/matrix.ts";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

/**
 * Enum query parameters take the value name, its number, or the name without the enum's prefix
 * in any case (docs/api.md), on every REST route that has one; JSON bodies stay proto3 JSON.
 */
for (const store of storeKinds) {
  describe(`Enum query parameters [${store}]`, () => {
    let server: TestServer;
    const get = (path: string) => restCall(server.apiUrl, server.org.token, "GET", path);

    before(async () => {
      server = await startTestServer(store);
      const orgUid = server.org.groupUid;
      await seedVersion(server, { orgUid, ecosystem: "python", name: "snake", version: "1.0" });
      await seedVersion(server, {
        orgUid,
        ecosystem: "javascript",
        name: "leaf",
        version: "1.0.0",
      });
      await seedVersion(server, { orgUid, ecosystem: "java", name: "g:bean", version: "1.0" });
      const db = server.lading.store.db;
      await importFeed(
        db,
        { parentUid: await ensurePublicAdvisoriesGroup(db), source: "advisories", author: "t" },
        importFormats.advisories.parser,
        [
          {
            file: "enumpkg.advisories.yaml",
            text: advisoryYaml("enumpkg", [
              {
                id: "CGA-2222-fffx-2222",
                aliases: ["CVE-2024-7001"],
                events: detectedThenFixed("2024-06-01T00:00:00Z", "2024-06-02T00:00:00Z", "1.1-r0"),
              },
              {
                id: "CGA-3333-gggx-3333",
                aliases: ["CVE-2024-7002"],
                events: detectedThenFixed("2024-06-01T00:00:00Z", "", "").slice(0, 1),
              },
            ]),
          },
        ],
        { finish: false },
      );
    });
    after(() => server?.close());

    const names = (body: Loose, key: string) =>
      ((body[key] ?? []) as Loose[]).map((a) => a.name ?? a.advisoryId).sort();

    it("lists artifacts of an ecosystem named with or without its prefix, in any case", async () => {
      for (const value of [
        "ECOSYSTEM_PYTHON",
        "PYTHON",
        "python",
        "Python",
        "ecosystem_python",
        "2",
      ]) {
        const body = ok(await get(`/libraries/v2/artifacts?ecosystems=${value}`));
        assert.deepEqual(names(body, "artifacts"), ["snake"], value);
      }
      const two = ok(await get("/libraries/v2/artifacts?ecosystems=javascript&ecosystems=JAVA"));
      assert.deepEqual(names(two, "artifacts"), ["g:bean", "leaf"]);
    });

    it("counts artifacts with the short names too", async () => {
      const body = ok(await get("/libraries/v2/artifacts/count?ecosystems=java&ecosystems=python"));
      assert.deepEqual(body.counts, [
        { ecosystem: "ECOSYSTEM_JAVA", totalCount: "1" },
        { ecosystem: "ECOSYSTEM_PYTHON", totalCount: "1" },
      ]);
    });

    it("filters advisories by an event type written as the CLI and the documents write it", async () => {
      const base = "/vulnerabilities/v2/advisories?artifact_names=enumpkg";
      for (const value of ["EVENT_TYPE_FIXED", "fixed", "FIXED", "event_type_fixed"]) {
        const body = ok(await get(`${base}&latest_event_type=${value}`));
        assert.deepEqual(names(body, "advisories"), ["CGA-2222-fffx-2222"], value);
      }
      const camel = ok(await get(`${base}&latestEventType=detection`));
      assert.deepEqual(names(camel, "advisories"), ["CGA-3333-gggx-3333"]);
      const repeated = ok(await get(`${base}&event_types=detection&event_types=fixed`));
      assert.deepEqual(names(repeated, "advisories"), ["CGA-2222-fffx-2222", "CGA-3333-gggx-3333"]);
      const dashed = ok(await get(`${base}&event_types=false-positive-determination`));
      assert.deepEqual(names(dashed, "advisories"), []);
    });

    it("refuses a name no value has, naming the parameter and the accepted forms", async () => {
      for (const [path, field] of [
        ["/libraries/v2/artifacts?ecosystems=cobol", "ecosystems"],
        ["/libraries/v2/artifacts?ecosystems=PYTHONX", "ecosystems"],
        ["/vulnerabilities/v2/advisories?latest_event_type=fixd", "latest_event_type"],
        ["/vulnerabilities/v2/advisories?latest_event_type=fixed!", "latest_event_type"],
        ["/vulnerabilities/v2/advisories?latestEventType=ECOSYSTEM_PYTHON", "latestEventType"],
      ]) {
        const result = await get(path);
        assert.equal(result.ok ? 200 : result.httpStatus, 400, path);
        const v = violations(result);
        assert.equal(v[0]?.field, field, path);
        assert.match(v[0]?.description ?? "", /prefix may be left out, in any case/, path);
      }
    });

    it("keeps JSON bodies to proto3 JSON: a short name in a body is refused", async () => {
      const call = (format: string) =>
        restCall(server.apiUrl, server.org.token, "POST", "/vulnerabilities/v2/advisories:import", {
          parent: server.org.groupUid,
          format,
          documents: [],
        });
      const short = await call("osv");
      assert.equal(short.ok ? 200 : short.httpStatus, 400);
      assert.equal(violations(short)[0]?.field, "format");
      const full = await call("IMPORT_FORMAT_OSV");
      assert.notEqual(violations(full)[0]?.field, "format", JSON.stringify(full));
    });
  });
}
