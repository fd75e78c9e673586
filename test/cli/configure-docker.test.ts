import assert from "node:assert/strict";
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, it } from "node:test";
import { runNode } from "./cli-support.ts";

const repo = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const cli = join(repo, "bin/lading.js");

describe("lading auth configure-docker checks the helper it configures", () => {
  let home: string;
  let env: Record<string, string>;
  const dockerConfig = () => join(home, "docker/config.json");
  const configure = (path: string[]) =>
    runNode(cli, ["auth", "configure-docker"], { ...env, PATH: path.join(":") });
  const exists = (file: string) =>
    readFile(file).then(
      () => true,
      () => false,
    );

  before(async () => {
    home = await mkdtemp(join(tmpdir(), "lading-configure-docker-"));
    env = {
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
      DOCKER_CONFIG: join(home, "docker"),
      LADING_REGISTRY_URL: "http://127.0.0.1:5999",
    };
  });
  after(() => rm(home, { recursive: true, force: true }));

  it("refuses, changing nothing, when docker-credential-lading is not on PATH", async () => {
    await mkdir(join(home, "empty"));
    const result = await configure([join(home, "empty")]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /^lading: docker-credential-lading is not on your PATH, so docker, skopeo and podman could not run it: run `export PATH="[^"]+\/bin:\$PATH"`/,
    );
    assert.equal(await exists(dockerConfig()), false);
  });

  it("refuses, changing nothing, when the helper on PATH does not run", async () => {
    const broken = join(home, "broken");
    await mkdir(broken);
    const script = join(broken, "docker-credential-lading");
    await writeFile(script, "#!/bin/sh\necho 'Error: this helper is broken' >&2\nexit 3\n");
    await chmod(script, 0o755);
    const result = await configure([broken, "/usr/bin", "/bin"]);
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /docker-credential-lading on PATH does not work \(`docker-credential-lading list` exited with 3: Error: this helper is broken\)/,
    );
    assert.equal(await exists(dockerConfig()), false);
  });

  it("configures the registry when the helper runs as docker would run it", async () => {
    const linked = join(home, "linked");
    await mkdir(linked);
    await symlink(
      join(repo, "bin/docker-credential-lading.js"),
      join(linked, "docker-credential-lading"),
    );
    // The system Node first when there is one, as on a user's machine.
    const path = [linked, "/usr/bin", "/bin", dirname(process.execPath)];
    const result = await configure(path);
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Configured .*config\.json: credHelpers\["127\.0\.0\.1:5999"\]/);
    assert.deepEqual(JSON.parse(await readFile(dockerConfig(), "utf8")), {
      credHelpers: { "127.0.0.1:5999": "lading" },
    });
    assert.match((await configure(path)).stdout, /^Already configured/);
  });
});
