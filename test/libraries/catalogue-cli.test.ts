import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { sharedDataDir } from "../../src/versions/testdata/shared-data.ts";
import {
  ensurePublicAdvisoriesGroup,
  importFeed,
  importFormats,
} from "../../src/vulnerabilities/index.ts";
import { type CliRunner, type CliServer, startCliServer } from "../cli/cli-support.ts";
import { describe } from "../support/counted-describe.ts";
import { seedVersion, seedVersions } from "../support/libraries.ts";
import { storeKinds } from "../support/stores.ts";

const osvDir = sharedDataDir("osv");
const noData = osvDir ? false : "shared/data/osv is not beside this checkout";

/** The table line whose first cell is `first`. */
function line(stdout: string, first: string): string {
  const found = stdout.split("\n").find((l) => l.split(/\s+/)[0] === first);
  assert.ok(found, `no line for ${first} in\n${stdout}`);
  return found;
}

for (const kind of storeKinds) {
  describe(`lading libraries list, versions and count (CLI process) [${kind}]`, {
    skip: noData,
  }, () => {
    let fixture: CliServer;
    let cli: CliRunner;
    let jinja = "";
    const run = async (...args: string[]) => {
      const result = await cli.run(args);
      assert.equal(result.code, 0, result.stderr);
      return result;
    };

    before(async () => {
      fixture = await startCliServer(kind);
      cli = fixture.cli;
      const { server } = fixture;
      const orgUid = server.org.groupUid;
      const seeded = await seedVersions(
        server,
        {
          orgUid,
          ecosystem: "python",
          name: "jinja2",
          displayName: "Jinja2",
          description: "Templates",
        },
        ["3.1.3", "3.1.4", "2.11.3"],
      );
      jinja = seeded[0].artifactUid;
      await seedVersion(server, {
        orgUid,
        ecosystem: "python",
        name: "markupsafe",
        version: "2.1.5",
      });
      await seedVersion(server, {
        orgUid,
        ecosystem: "javascript",
        name: "@acme/ui",
        version: "1.0.0",
      });
      const db = server.lading.store.db;
      await importFeed(
        db,
        { parentUid: await ensurePublicAdvisoriesGroup(db), source: "osv", author: "import:osv" },
        importFormats.osv.parser,
        [
          {
            file: "GHSA-h75v-3vvj-5mfj.json",
            text: readFileSync(join(osvDir ?? "", "ghsa", "GHSA-h75v-3vvj-5mfj.json"), "utf8"),
          },
        ],
        { finish: false },
      );
    });
    after(() => fixture?.close());

    it("list shows the packages by name; --limit pages; -o json is the API answer", async () => {
      const { stdout } = await run("libraries", "list", "--ecosystem", "python");
      assert.match(stdout.split("\n")[0], /^NAME\s+ECOSYSTEM\s+LATEST\s+VERSIONS\s+UPDATED\s+ID$/);
      assert.match(
        line(stdout, "Jinja2"),
        /^Jinja2\s+python\s+3\.1\.4\s+3\s+\S+\s+python:[0-9a-f]{40}:jinja2$/,
      );
      assert.ok(line(stdout, "markupsafe"));
      const limited = await run("libraries", "list", "--ecosystem", "python", "--limit", "1");
      assert.equal(limited.stdout.trim().split("\n").length, 2);
      assert.match(limited.stderr, /more results: --page-token \S+/);
      const json = JSON.parse((await run("libraries", "list", "-o", "json")).stdout);
      assert.equal(json.totalCount, "3");
      assert.deepEqual(
        json.artifacts.map((a: { name: string }) => a.name),
        ["@acme/ui", "jinja2", "markupsafe"],
      );
      const query = await run("libraries", "list", "--query", "TEMPL", "-o", "id");
      assert.equal(query.stdout, `${jinja}\n`);
    });

    it("versions lists newest first with the advisories affecting each and the fixing version", async () => {
      const { stdout } = await run("libraries", "versions", jinja);
      const versions = stdout
        .trim()
        .split("\n")
        .slice(1)
        .map((l) => l.split(/\s+/)[0]);
      assert.deepEqual(versions, ["3.1.4", "3.1.3", "2.11.3"]);
      assert.match(line(stdout, "3.1.3"), /CVE-2024-34064 \(fixed in 3\.1\.4\)\s+-$/);
      assert.match(line(stdout, "2.11.3"), /CVE-2024-34064 \(fixed in 3\.1\.4\)/);
      assert.match(line(stdout, "3.1.4"), /-\s+CVE-2024-34064$/);
      const json = JSON.parse((await run("libraries", "versions", jinja, "-o", "json")).stdout);
      assert.equal(json.artifactVersions[1].advisories[0].status, "ADVISORY_STATUS_AFFECTED");
    });

    it("count counts per ecosystem; bad input is a usage error, an unknown id the API's 404", async () => {
      const { stdout } = await run("libraries", "count");
      assert.match(line(stdout, "python"), /^python\s+2$/);
      assert.match(line(stdout, "javascript"), /^javascript\s+1$/);
      assert.match(line(stdout, "java"), /^java\s+0$/);
      const bad = await cli.run(["libraries", "list", "--ecosystem", "ruby"]);
      assert.equal(bad.code, 2);
      assert.match(bad.stderr, /--ecosystem must be one of python, javascript, java/);
      const missing = await cli.run(["libraries", "versions", jinja.replace("jinja2", "nope")]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /not found|NOT_FOUND/i);
    });
  });
}
