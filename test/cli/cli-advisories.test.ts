import assert from "node:assert/strict";
import { cp, mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { sharedDataDir } from "../../src/versions/testdata/shared-data.ts";
import type { TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";
import { type CliRunner, type CliServer, startCliServer } from "./cli-support.ts";

const fixtures = new URL("../fixtures/advisories/", import.meta.url).pathname;

function shared(name: string): string {
  const dir = sharedDataDir(name);
  if (!dir) throw new Error(`the shared sample data (shared/data/${name}) is missing`);
  return dir;
}

/** The summary counts printed by an import. */
function counts(stdout: string): Record<string, number> {
  const match =
    /created (\d+), updated (\d+), withdrawn (\d+), unchanged (\d+), rejected (\d+)/.exec(stdout);
  if (!match) throw new Error(`no summary in ${stdout}`);
  const [created, updated, withdrawn, unchanged, rejected] = match.slice(1).map(Number);
  return { created, updated, withdrawn, unchanged, rejected };
}

for (const kind of storeKinds) {
  describe(`lading admin import, advisories and vulns (CLI process) [${kind}]`, () => {
    let server: TestServer;
    let cli: CliRunner;
    let fixture: CliServer;
    let store: string[];
    let work: string;
    const admin = async (...args: string[]) => {
      const result = await cli.run(["admin", "import", ...args, ...store]);
      assert.equal(result.code, 0, result.stderr);
      return result.stdout;
    };

    before(async () => {
      fixture = await startCliServer(kind);
      ({ server, cli } = fixture);
      const options = server.store.options;
      store = options.databaseUrl
        ? ["--database-url", options.databaseUrl]
        : ["--data-dir", options.dataDir];
      work = await mkdtemp(join(tmpdir(), "lading-advisories-"));
      await cp(fixtures, join(work, "advisories"), {
        recursive: true,
        filter: (source) => !source.endsWith(".ts"),
      });
    });
    after(async () => {
      await rm(work, { recursive: true, force: true });
      await fixture.close();
    });

    it("refuses bad flags and missing paths before touching the store", async () => {
      const badSource = await cli.run([
        "admin",
        "import",
        "advisories",
        fixtures,
        "--source",
        "Bad!",
        ...store,
      ]);
      assert.equal(badSource.code, 2);
      assert.match(badSource.stderr, /--source must match/);
      const badGroup = await cli.run([
        "admin",
        "import",
        "kev",
        fixtures,
        "--group",
        "nope",
        ...store,
      ]);
      assert.equal(badGroup.code, 2);
      const missing = await cli.run(["admin", "import", "osv", join(work, "nowhere"), ...store]);
      assert.equal(missing.code, 2);
      assert.match(missing.stderr, /no such file or folder/);
      const stdin = await cli.run(["admin", "import", "any", "-", ...store]);
      assert.equal(stdin.code, 2);
    });

    it("imports the advisory fixtures, then again with zero changes", async () => {
      const first = counts(await admin("advisories", join(work, "advisories")));
      assert.deepEqual(first, {
        created: 400,
        updated: 0,
        withdrawn: 0,
        unchanged: 0,
        rejected: 0,
      });
      const second = counts(await admin("advisories", join(work, "advisories")));
      assert.deepEqual(second, {
        created: 0,
        updated: 0,
        withdrawn: 0,
        unchanged: 400,
        rejected: 0,
      });
    });

    it("withdraws the advisories of a document that left the source, never deleting them", async () => {
      const files = (await readdir(join(work, "advisories"))).sort();
      const gone = files[0];
      const text = await readFile(join(work, "advisories", gone), "utf8");
      const inFile = (text.match(/^ {2}- id: CGA-/gm) ?? []).length;
      await rm(join(work, "advisories", gone));
      const run = counts(await admin("advisories", join(work, "advisories")));
      assert.deepEqual(run, {
        created: 0,
        updated: 0,
        withdrawn: inFile,
        unchanged: 400 - inFile,
        rejected: 0,
      });
      const partial = counts(
        await admin("advisories", join(work, "advisories", files[1]), "--partial"),
      );
      assert.equal(partial.withdrawn, 0, "--partial withdraws nothing outside its paths");
      const listed = JSON.parse(
        await cli.ok(
          "advisories",
          "list",
          "--artifact",
          gone.replace(".advisories.yaml", ""),
          "--show-withdrawn",
          "-o",
          "json",
        ),
      );
      assert.equal(listed.advisories.length, inFile);
      assert.ok(listed.advisories.every((a: { deleteTime?: string }) => a.deleteTime));
    });

    it("reports every malformed document with file, position and reason, and imports the rest", async () => {
      const result = await cli.run([
        "admin",
        "import",
        "advisories",
        join(fixtures, "..", "advisories-bad"),
        "--source",
        "bad",
        ...store,
      ]);
      assert.equal(result.code, 0);
      const summary = counts(result.stdout);
      assert.equal(summary.rejected, 12);
      const lines = result.stdout.split("\n").filter((l) => l.startsWith("rejected: "));
      assert.equal(lines.length, 12);
      for (const line of lines) assert.match(line, /^rejected: \S+\.advisories\.yaml: \S.*: \S/);
      assert.ok(lines.some((l) => /schema-three.*newer/.test(l)));
    });

    it("imports the real OSV, OpenVEX, NVD, KEV and EPSS samples in full", async () => {
      const osv = counts(await admin("osv", shared("osv")));
      assert.equal(osv.rejected, 0);
      assert.equal(osv.withdrawn, 34, "17 withdrawn records, each as an advisory and as metadata");
      assert.equal(osv.created + osv.withdrawn, 122 + 115);
      const vex = counts(await admin("openvex", shared("openvex")));
      assert.deepEqual(vex, { created: 18, updated: 0, withdrawn: 0, unchanged: 0, rejected: 0 });
      const vulnmeta = shared("vulnmeta");
      const nvd = counts(
        await admin(
          "nvd",
          join(vulnmeta, "nvd-cve-2.0-page.json"),
          join(vulnmeta, "nvd-cve-2.0-single.json"),
        ),
      );
      assert.equal(nvd.rejected, 0);
      assert.equal(nvd.created + nvd.updated, 39);
      const kevText = await readFile(join(vulnmeta, "cisa-kev-catalog-excerpt.json"), "utf8");
      const kev = await cli.run(["admin", "import", "kev", "-", ...store], {}, { stdin: kevText });
      assert.equal(kev.code, 0, kev.stderr);
      assert.equal(counts(kev.stdout).rejected, 0);
      const epss = counts(await admin("epss", join(vulnmeta, "epss-scores-excerpt.csv")));
      assert.equal(epss.created + epss.updated, 5);
      const again = counts(await admin("osv", shared("osv")));
      assert.deepEqual(again, {
        created: 0,
        updated: 0,
        withdrawn: 0,
        unchanged: 122 + 115,
        rejected: 0,
      });
    });

    it("lists and gets advisories with filters, in table, json and id output", async () => {
      const table = await cli.ok(
        "advisories",
        "list",
        "--query",
        "runc",
        "--order-by",
        "advisory_id",
      );
      assert.match(table, /^ADVISORY\s+ARTIFACT\s+ALIASES\s+STATUS\s+FIXED IN\s+UPDATED\s+UID\n/);
      assert.match(table, /github\.com\/opencontainers\/runc/);
      const json = JSON.parse(
        await cli.ok(
          "advisories",
          "list",
          "--artifact",
          "github.com/opencontainers/runc",
          "--status",
          "fixed",
          "-o",
          "json",
        ),
      );
      assert.ok(json.advisories.length > 0);
      assert.ok(
        json.advisories.every(
          (a: { artifactName: string; latestEventType: string }) =>
            a.artifactName === "github.com/opencontainers/runc" &&
            a.latestEventType === "EVENT_TYPE_FIXED",
        ),
      );
      const ids = (
        await cli.ok(
          "advisories",
          "list",
          "--artifact",
          "github.com/opencontainers/runc",
          "-o",
          "id",
        )
      )
        .trim()
        .split("\n");
      assert.equal(ids.length, json.advisories.length);
      const one = JSON.parse(await cli.ok("advisories", "get", ids[0], "-o", "json"));
      assert.equal(one.uid, ids[0]);
      const bad = await cli.run(["advisories", "list", "--status", "resolved"]);
      assert.notEqual(bad.code, 0);
    });

    it("shows vulnerability metadata with CVSS, KEV and EPSS", async () => {
      const out = await cli.ok(
        "vulns",
        "metadata",
        "CVE-2022-1576",
        "CVE-2025-0108",
        "CVE-1999-0001",
      );
      assert.match(out, /^ID\s+CVSS\s+KEV\s+EPSS\s+CWES\s+SUMMARY\n/);
      assert.match(out, /CVE-2022-1576\s+6\.5 \(V3\)\s+no/);
      assert.match(out, /CVE-2025-0108\s+.*yes, since 2025-02-18/);
      assert.match(out, /CVE-1999-0001\s+.*0\.00383 \(p0\.73075, 2025-02-20\)/);
      const signedOut = await cli.run(["vulns", "metadata", "CVE-2022-1576"], {
        LADING_TOKEN: undefined,
      });
      assert.equal(signedOut.code, 0, "metadata needs no sign-in");
      assert.match(signedOut.stdout, /CVE-2022-1576/);
      const missing = await cli.run(["vulns", "metadata", "CVE-2000-0000"]);
      assert.equal(missing.code, 1);
      assert.match(missing.stderr, /no metadata for CVE-2000-0000/);
    });

    it("publishes an organisation's advisories through the API with lading advisories import", async () => {
      const org = server.org.groupUid;
      const first = counts(
        await cli.ok(
          "advisories",
          "import",
          join(work, "advisories"),
          "--parent",
          org,
          "--source",
          "ci",
        ),
      );
      assert.equal(first.created, 400 - 0 - (await withdrawnCount()));
      const second = counts(
        await cli.ok(
          "advisories",
          "import",
          join(work, "advisories"),
          "--parent",
          org,
          "--source",
          "ci",
        ),
      );
      assert.equal(second.created, 0);
      assert.equal(second.updated, 0);
      const mine = JSON.parse(
        await cli.ok("advisories", "list", "--under", org, "-o", "json", "--page-size", "1"),
      );
      assert.equal(Number(mine.totalCount), first.created);
    });

    async function withdrawnCount(): Promise<number> {
      const files = await readdir(join(work, "advisories"));
      let total = 0;
      for (const f of files)
        total += (
          (await readFile(join(work, "advisories", f), "utf8")).match(/^ {2}- id: CGA-/gm) ?? []
        ).length;
      return 400 - total;
    }
  });
}
