import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { sharedDataDir } from "../../src/versions/testdata/shared-data.ts";
import { describe } from "../support/counted-describe.ts";

const repo = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const sharedData = sharedDataDir("");
// The user's PATH: this one without node_modules/.bin folders, whose Node 24 a user's shell
// does not have (CI and developers put the checkout's first).
const userPath = (process.env.PATH ?? "")
  .split(":")
  .filter((dir) => dir && !/\/node_modules\/\.bin\/?$/.test(dir))
  .join(":");
const onPath = (tool: string) => userPath.split(":").some((dir) => existsSync(join(dir, tool)));
const tools = ["skopeo", "jq", "curl", "npm", "npx", "twine", "python3", "pip", "unshare", "ip"];
const missingTools = tools.filter((tool) => !onPath(tool));
// A network namespace (only loopback) and a PID namespace, so that whatever the blocks leave
// running (the server, a receiver) dies with it when the test ends or times out.
const unshare = ["-rn", "--pid", "--fork", "--kill-child"];
// The blocks use the default ports (8080, 5000, 9000) as printed: a network namespace of their
// own (unshare -rn: only its loopback) keeps them from meeting anything else on this machine.
const ownNetwork = () =>
  spawnSync("unshare", unshare.concat("true"), { stdio: "ignore" }).status === 0
    ? false
    : "unshare -rn fails";

/** The ```sh blocks of the README section that starts with `heading`. */
function shellBlocks(readme: string, heading: string): string[] {
  const from = readme.indexOf(`${heading}\n`);
  assert.ok(from >= 0, `no section ${heading}`);
  const next = readme.slice(from + heading.length).search(/\n#{2,3} /);
  const section = readme.slice(from, next < 0 ? undefined : from + heading.length + next);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]);
}

/**
 * Starts the first steps' server block in the background (its own session, so the whole npm ->
 * node tree stops together), waits until both listeners are ready, runs the steps with
 * `set -euo pipefail`, stops the server and exits with the steps' status.
 */
const runner = `set -u
ip link set lo up
setsid bash -c "$README_SERVER_BLOCK" > "$README_SERVER_LOG" 2>&1 &
server=$!
up=""
for i in $(seq 180); do
  if curl -sf http://127.0.0.1:8080/readyz > /dev/null && curl -sf http://127.0.0.1:5000/readyz > /dev/null; then up=1; break; fi
  sleep 1
done
rc=1
if [ -n "$up" ]; then bash -euo pipefail -c "$README_STEPS"; rc=$?; else echo "the server did not start" >&2; fi
kill -TERM -- -$server 2>/dev/null
wait $server
exit $rc
`;

/**
 * The README's first steps and quick starts (registry, security data, vulnerability reports,
 * events, libraries), pasted exactly as printed into bash, as a new user would: the server
 * started as the first steps say, from a fresh checkout (the repository's tracked top-level
 * entries and node_modules, linked into a new folder, with the sample data beside it as
 * `../shared/data`), the user's PATH (no node_modules/.bin) and a new HOME.
 */
describe("README first steps, pasted as printed", {
  skip:
    (missingTools.length > 0 && `needs ${missingTools.join(", ")} on PATH`) ||
    (!sharedData && "needs the shared sample data") ||
    ownNetwork(),
}, () => {
  let work: string;
  let checkout: string;
  let tmp: string;
  let running: ChildProcess | undefined;

  before(() => {
    work = mkdtempSync(join(tmpdir(), "lading-readme-"));
    checkout = join(work, "lading");
    tmp = join(work, "tmp");
    for (const dir of [checkout, tmp, join(work, "home"), join(work, "shared")]) mkdirSync(dir);
    symlinkSync(sharedData as string, join(work, "shared", "data"));
    const tracked = spawnSync("git", ["ls-files"], { cwd: repo, encoding: "utf8" }).stdout;
    const top = new Set(
      tracked
        .split("\n")
        .filter(Boolean)
        .map((f) => f.split("/")[0]),
    );
    for (const entry of [...top, "node_modules"]) {
      symlinkSync(join(repo, entry), join(checkout, entry));
    }
  });
  after(() => {
    if (running?.exitCode === null) running.kill("SIGKILL");
    if (work) rmSync(work, { recursive: true, force: true });
  });

  // Minutes of work: npm, Node starts through the launcher, scans, pip and npm installs.
  it("runs every block of every section without an edit", { timeout: 15 * 60_000 }, async () => {
    const readme = readFileSync(join(repo, "README.md"), "utf8");
    const [serverBlock, ...firstSteps] = shellBlocks(readme, "### First steps");
    assert.match(serverBlock, /^npm start -- --events-allow-http-loopback /);
    const steps = [
      ...firstSteps,
      ...shellBlocks(readme, "## Registry quick start"),
      ...shellBlocks(readme, "## Security data quick start"),
      ...shellBlocks(readme, "## Vulnerability reports quick start"),
      ...shellBlocks(readme, "## Events quick start"),
      ...shellBlocks(readme, "## Libraries quick start"),
    ].join("\n");
    const entriesBefore = readdirSync(checkout).sort();
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PATH: userPath,
      HOME: join(work, "home"),
      TMPDIR: tmp,
      README_SERVER_BLOCK: serverBlock,
      README_SERVER_LOG: join(work, "server.log"),
      README_STEPS: steps,
    };
    delete env.XDG_CONFIG_HOME;
    delete env.XDG_RUNTIME_DIR;
    const { code, stdout, stderr } = await new Promise<{
      code: number | null;
      stdout: string;
      stderr: string;
    }>((resolve, reject) => {
      const child = spawn("unshare", [...unshare, "bash", "-c", runner], { cwd: checkout, env });
      running = child;
      let out = "";
      let err = "";
      child.stdout.on("data", (d) => {
        out += d;
      });
      child.stderr.on("data", (d) => {
        err += d;
      });
      child.on("error", reject);
      child.on("close", (exit) => resolve({ code: exit, stdout: out, stderr: err }));
    });
    const serverLog = () => readFileSync(join(work, "server.log"), "utf8").slice(-4000);
    assert.equal(code, 0, `${stderr.slice(-4000)}\n--- server:\n${serverLog()}`);
    // The quick starts wrote nothing into the checkout but the server's store.
    assert.deepEqual(readdirSync(checkout).sort(), [...entriesBefore, ".lading"].sort());
    const scratch = readdirSync(tmp)
      .map((name) => join(tmp, name))
      .find((dir) => existsSync(join(dir, "received-1.log")));
    assert.ok(scratch, "the scratch folder holds the quick starts' files");
    const received = (name: string) => readFileSync(join(scratch, name), "utf8");
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
    const layout = JSON.parse(readFileSync(join(scratch, "pulled", "index.json"), "utf8"));
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
