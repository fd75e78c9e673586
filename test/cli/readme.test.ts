import assert from "node:assert/strict";
import { type ChildProcess, execFile, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { promisify } from "node:util";
import { sharedDataDir } from "../../src/versions/testdata/shared-data.ts";
import { describe } from "../support/counted-describe.ts";

const run = promisify(execFile);

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once("error", reject);
    probe.listen(0, "127.0.0.1", () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
const repo = new URL("../..", import.meta.url).pathname;
const sharedData = sharedDataDir("") ?? "";
const hasTools = ["skopeo", "jq", "curl"].every((tool) =>
  process.env.PATH?.split(":").some((dir) => existsSync(join(dir, tool))),
);

/** The ```sh blocks of the README section that starts with `heading`. */
function shellBlocks(readme: string, heading: string): string {
  const from = readme.indexOf(`${heading}\n`);
  assert.ok(from >= 0, `no section ${heading}`);
  const next = readme.slice(from + heading.length).search(/\n#{2,3} /);
  const section = readme.slice(from, next < 0 ? undefined : from + heading.length + next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]).join("\n");
}

/**
 * The README's first steps and quick starts (registry, security data, vulnerability reports), pasted as they are into bash against a
 * `lading serve` with embedded defaults in a fresh folder. Only the ports differ (the server
 * listens on free ones) and `npx` is dropped (lading and buf are put on PATH, as `npm link` and
 * the checkout's node_modules/.bin would).
 */
describe("README first steps, pasted line by line", {
  skip: !hasTools && "needs skopeo, jq and curl",
}, () => {
  let work: string;
  let server: ChildProcess;
  let api = "";
  let registry = "";

  let listen: Record<string, string> = {};
  let receiverPort = 0;

  before(async () => {
    work = mkdtempSync(join(tmpdir(), "lading-readme-"));
    // The admin commands derive the token issuer from the listen address, as serve does, so
    // both get the same free ports through the environment.
    listen = {
      LADING_API_LISTEN: `127.0.0.1:${await freePort()}`,
      LADING_REGISTRY_LISTEN: `127.0.0.1:${await freePort()}`,
    };
    receiverPort = await freePort();
    server = spawn(process.execPath, [join(repo, "bin/lading.js"), "serve"], {
      cwd: work,
      // As the README's events section says to start it, for its plain-http local receiver.
      env: {
        ...process.env,
        ...listen,
        LADING_LOG_LEVEL: "warn",
        LADING_EVENTS_ALLOW_HTTP_LOOPBACK: "true",
      },
    });
    const line = await new Promise<string>((resolve, reject) => {
      let out = "";
      server.stdout?.on("data", (chunk) => {
        out += chunk;
        if (out.includes("registry on")) resolve(out);
      });
      server.once("exit", (code) => reject(new Error(`lading serve exited ${code}`)));
    });
    [, api, registry] = /API on http:\/\/([^,]+), registry on http:\/\/(\S+)/.exec(line) ?? [];
    assert.ok(api && registry, line);
  });
  after(() => {
    server?.kill("SIGTERM");
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it("runs every command of both sections without an edit", async () => {
    const readme = readFileSync(join(repo, "README.md"), "utf8");
    const script = [
      shellBlocks(readme, "### First steps"),
      shellBlocks(readme, "## Registry quick start"),
      shellBlocks(readme, "## Security data quick start"),
      shellBlocks(readme, "## Vulnerability reports quick start"),
      shellBlocks(readme, "## Events quick start"),
      shellBlocks(readme, "## Libraries quick start"),
    ]
      .join("\n")
      .replaceAll("../shared/data", sharedData)
      .replaceAll(" test/fixtures/", ` ${join(repo, "test/fixtures")}/`)
      .replaceAll("127.0.0.1:8080", api)
      .replaceAll("127.0.0.1:5000", registry)
      .replaceAll("127.0.0.1:9000", `127.0.0.1:${receiverPort}`)
      .replaceAll("npx ", "");
    const bin = join(work, "bin");
    const received = (name: string) => readFileSync(join(work, name), "utf8");
    await run("mkdir", [bin]);
    symlinkSync(join(repo, "bin/lading.js"), join(bin, "lading"));
    const PATH = [bin, join(repo, "node_modules/.bin"), process.env.PATH].join(":");
    const { stdout } = await run("bash", ["-euo", "pipefail", "-c", script], {
      cwd: work,
      env: { ...process.env, ...listen, PATH },
      maxBuffer: 16 << 20,
    });
    assert.match(stdout, /"viewer"/, "the role binding lists the viewer role");
    assert.match(stdout, /hello from Lading\n/, "the wheel installed from Lading imports");
    assert.match(stdout, /hello from Lading \(npm\)/, "the npm package installed from Lading runs");
    assert.match(
      stdout,
      /^hello-lading\s+python\s+1\.0\.0\s+1\s/m,
      "the catalogue lists the wheel",
    );
    assert.match(
      stdout,
      /^hello-npm\s+javascript\s+1\.0\.0\s+1\s/m,
      "the catalogue lists the npm package",
    );
    assert.match(stdout, /lading\.iam\.v2\.IdentitiesService/, "reflection lists the services");
    assert.match(stdout, /"history"/);
    const layout = JSON.parse(readFileSync(join(work, "pulled", "index.json"), "utf8"));
    assert.equal(layout.manifests.length, 1, "the older build was pulled by its digest");
    assert.match(
      stdout,
      /created \d+, updated 0, withdrawn \d+, unchanged 0, rejected 0/,
      "one import of every sample feed",
    );
    assert.match(
      stdout,
      /"latestEventType": "EVENT_TYPE_FIXED"/,
      "advisories of a package over REST",
    );
    assert.match(stdout, /"kev": true/, "KEV flag of a CVE");
    assert.match(stdout, /"epssScore": 0\.00383/, "EPSS score of a CVE");
    const days = stdout.split("\n").filter((l) => l.startsWith('{"date":"2024-'));
    assert.ok(days.length >= 1, "the resolved report lists the days with resolutions");
    // Only those: the year has 366 days, a handful of which resolved anything.
    assert.ok(days.length <= 20, `the resolved report prints ${days.length} lines`);
    for (const day of days) assert.match(day, /"resolved":\["CGA-/, day);
    assert.match(
      stdout,
      /^\{"type":"TYPE_CVSS_V3","baseScore":7\.5,"version":"3\.1"\}$/m,
      "an OSV vector's base score",
    );
    assert.match(stdout, /^\{"type":"TYPE_CVSS_V4","baseScore":8\.7,"version":"4\.0"\}$/m);
    assert.match(stdout, /^GHSA-78wr-2p64-hpwj\b.*\b7\.5\b/m, "the CLI shows it too");
    const matches = stdout
      .split("\n")
      .filter((l) => l.startsWith('{"id":"CVE-') && l.includes('"pkg":"git"'));
    assert.ok(matches.length >= 1, "the old build's report lists git's vulnerabilities");
    assert.match(stdout, /"artifactType":"application\/spdx\+json"/, "the generated SBOM referrer");
    assert.match(stdout, /~ git 2\.40\.1-r0 → 9\.2\.0-r0/, "the diff shows git's upgrade");
    assert.match(stdout, /\+ curl 8\.11\.0-r0/, "the diff shows the added package");
    assert.match(stdout, /fixed CVE-\d+-\d+ /, "the diff lists CVEs the move fixed");
    assert.match(stdout, /CVEs? fixed/, "the tag history summarises the move");
    assert.match(stdout, /\{"date":"\d{4}-\d{2}-\d{2}","digest":"sha256:/, "a daily count");
    assert.match(stdout, /"status":"(affected|fixed|not_affected|under_investigation)"/, "VEX");
    const first = received("received-1.log");
    assert.match(first, /^OK dev\.lading\.registry\.push\.v1 /m, "a verified push event");
    assert.match(first, /^OK dev\.lading\.registry\.tag\.created\.v1 /m, "a verified tag event");
    assert.doesNotMatch(first, /refused/);
    const second = received("received-2.log");
    assert.ok(
      second.indexOf("iam.group.created.v1") < second.indexOf("registry.tag.created.v1"),
      "the missed events arrive in the order they happened",
    );
    assert.match(second, /^OK dev\.lading\.iam\.group\.created\.v1 /m, "a missed change arrives");
    assert.match(second, /^OK dev\.lading\.registry\.push\.v1 /m, "the missed push arrives");
    assert.doesNotMatch(second, /refused/);
  });
});
