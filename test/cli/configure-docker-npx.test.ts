import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { promisify } from "node:util";
import { describe } from "../support/counted-describe.ts";
import { buildImage, writeLayout } from "../support/oci-layout.ts";
import { type RegistryTestServer, startRegistryServer } from "../support/registry-server.ts";

const run = promisify(execFile);
const repo = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
// A user's shell on Debian or Ubuntu: the system Node and its npm, npx and skopeo.
const userTools = ["/usr/bin/node", "/usr/bin/npx", "/usr/bin/skopeo"];
const missing = userTools.filter((tool) => !existsSync(tool));

/** Runs a command the way a shell with `env` would, keeping exit code and output. */
async function shell(command: string, args: string[], env: NodeJS.ProcessEnv) {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: repo, env, encoding: "utf8" });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string };
    return { code: e.code ?? -1, stdout: e.stdout ?? "", stderr: e.stderr ?? "" };
  }
}

/**
 * Issue 22.2: `npx lading auth configure-docker` run from the user's shell, where PATH has
 * neither command (npx puts its own bin folder on PATH only while it runs), must refuse with the
 * one command that fixes it; once the user has run that command it configures the registry,
 * and skopeo with that configuration works, anonymous public pulls included. The store is not
 * what is checked here, so one store pair runs.
 */
describe("configure-docker from the user's shell, through npx", {
  skip: missing.length > 0 && `needs ${missing.join(", ")}`,
}, () => {
  let r: RegistryTestServer;
  let home: string;
  let user: NodeJS.ProcessEnv;
  const dockerConfig = () => join(home, "docker", "config.json");
  const publicRef = () => `docker://${r.host}/public/app:latest`;

  before(async () => {
    r = await startRegistryServer({ store: "sqlite", blobs: "filesystem" });
    home = await mkdtemp(join(tmpdir(), "lading-configure-npx-"));
    user = {
      PATH: "/usr/bin:/bin",
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      XDG_RUNTIME_DIR: home,
      DOCKER_CONFIG: join(home, "docker"),
      LADING_API_URL: r.server.apiUrl,
      LADING_REGISTRY_URL: r.registryUrl,
    };
    const image = buildImage("a public image");
    const pushed = await shell(
      "skopeo",
      [
        "copy",
        "--dest-creds",
        `_token:${r.publicOrg.token}`,
        "--dest-tls-verify=false",
        `oci:${writeLayout("latest", [image])}:latest`,
        publicRef(),
      ],
      user,
    );
    assert.equal(pushed.code, 0, pushed.stderr);
  });
  after(async () => {
    await r?.close();
    if (home) await rm(home, { recursive: true, force: true });
  });

  // npx's first run in a new HOME links the checkout into its cache.
  it("refuses with the command that puts the helper on PATH, writing nothing", {
    timeout: 5 * 60_000,
  }, async () => {
    const refused = await shell("npx", ["lading", "auth", "configure-docker"], user);
    assert.equal(refused.code, 1, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /docker-credential-lading is not on your PATH \(npx/);
    assert.ok(refused.stderr.includes(`run \`export PATH="${repo}/bin:$PATH"\``), refused.stderr);
    assert.equal(existsSync(dockerConfig()), false);
    // What the refusal prevents: with that entry, skopeo fails even for an anonymous pull.
    const broken = join(home, "broken.json");
    await run("sh", ["-c", `echo '{"credHelpers":{"${r.host}":"lading"}}' > ${broken}`]);
    const failed = await shell(
      "skopeo",
      ["inspect", "--authfile", broken, "--tls-verify=false", publicRef()],
      user,
    );
    assert.notEqual(failed.code, 0);
    assert.match(failed.stderr, /docker-credential-lading/);
  });

  it("configures the registry once PATH is set as the refusal says, and skopeo works", {
    timeout: 5 * 60_000,
  }, async () => {
    const fixed = { ...user, PATH: `${repo}/bin:${user.PATH}` };
    const configured = await shell("npx", ["lading", "auth", "configure-docker"], fixed);
    assert.equal(configured.code, 0, configured.stderr);
    assert.match(
      configured.stdout,
      /^Configured .*config\.json: credHelpers\["127\.0\.0\.1:\d+"\]/,
    );
    const config = JSON.parse(await readFile(dockerConfig(), "utf8"));
    assert.deepEqual(config.credHelpers, { [r.host]: "lading" });
    // Plain `lading`, as the README runs it, agrees.
    const again = await shell("lading", ["auth", "configure-docker"], fixed);
    assert.match(again.stdout, /^Already configured/, again.stderr);

    // Anonymous (nobody signed in): the helper answers "not found" and the public pull works.
    const anonymous = await shell(
      "skopeo",
      ["inspect", "--authfile", dockerConfig(), "--tls-verify=false", publicRef()],
      fixed,
    );
    assert.equal(anonymous.code, 0, anonymous.stderr);
    assert.equal(JSON.parse(anonymous.stdout).Name, `${r.host}/public/app`);
    // Signed in through LADING_TOKEN: the helper mints a registry token and a push works.
    const pushed = await shell(
      "skopeo",
      [
        "copy",
        "--authfile",
        dockerConfig(),
        "--dest-tls-verify=false",
        `oci:${writeLayout("v1", [buildImage("through the helper")])}:v1`,
        `docker://${r.host}/acme/app:v1`,
      ],
      { ...fixed, LADING_TOKEN: r.server.org.token },
    );
    assert.equal(pushed.code, 0, pushed.stderr);
  });
});
