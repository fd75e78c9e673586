import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { existsSync, readFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, it } from "node:test";
import { describe } from "../support/counted-describe.ts";
import type { CliRun } from "./cli-support.ts";

// The Node a Debian or Ubuntu machine runs for `#!/usr/bin/env node`: often older than Node 22,
// so it cannot run TypeScript. The launcher must work under it all the same.
const systemNode = "/usr/bin/node";
const repo = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");
const version = JSON.parse(readFileSync(join(repo, "package.json"), "utf8")).version;

/** Runs `command` found through env.PATH, as a shell, docker or skopeo would. */
function runFromPath(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  stdin = "",
): Promise<CliRun & { signal: NodeJS.Signals | null }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d) => {
      stdout += d;
    });
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    child.stdin.end(stdin);
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr }));
  });
}

describe("bin scripts linked onto PATH and run by the system Node", {
  skip: existsSync(systemNode) ? false : `${systemNode} does not exist`,
}, () => {
  let home: string;
  let env: NodeJS.ProcessEnv;
  before(async () => {
    home = await mkdtemp(join(tmpdir(), "lading-launcher-"));
    const bin = join(home, "bin");
    await mkdir(bin);
    await symlink(join(repo, "bin/lading.js"), join(bin, "lading"));
    await symlink(
      join(repo, "bin/docker-credential-lading.js"),
      join(bin, "docker-credential-lading"),
    );
    env = {
      PATH: [bin, "/usr/bin", "/bin"].join(":"),
      HOME: home,
      XDG_CONFIG_HOME: join(home, ".config"),
    };
  });
  after(() => rm(home, { recursive: true, force: true }));

  it("prints the version and help, and passes exit codes through", async () => {
    const versioned = await runFromPath("lading", ["--version"], env);
    assert.equal(versioned.stderr, "");
    assert.equal(versioned.code, 0);
    assert.equal(versioned.stdout, `lading ${version}\n`);
    const help = await runFromPath("lading", ["--help"], env);
    assert.equal(help.code, 0, help.stderr);
    assert.match(help.stdout, /^usage: lading <command>/m);
    const wrong = await runFromPath("lading", ["iam", "--hlep"], env);
    assert.equal(wrong.code, 2);
    assert.match(wrong.stderr, /did you mean --help\?/);
  });

  it("speaks the credential helper protocol on stdin and stdout", async () => {
    const helper = (action: string, stdin = "") =>
      runFromPath("docker-credential-lading", [action], env, stdin);
    const saved = { ServerURL: "https://r.example:5000", Username: "puller", Secret: "s3cret" };
    const stored = await helper("store", JSON.stringify(saved));
    assert.equal(stored.code, 0, stored.stdout + stored.stderr);
    const got = await helper("get", "r.example:5000\n");
    assert.equal(got.code, 0, got.stdout + got.stderr);
    assert.deepEqual(JSON.parse(got.stdout), { ...saved, ServerURL: "r.example:5000" });
    assert.deepEqual(JSON.parse((await helper("list")).stdout), { "r.example:5000": "puller" });
    assert.equal((await helper("erase", "https://r.example:5000")).code, 0);
    const gone = await helper("get", "r.example:5000");
    assert.equal(gone.code, 1);
    assert.equal(gone.stdout, "credentials not found in native keychain\n");
  });

  it("passes SIGTERM on: lading serve drains and exits 0", async () => {
    const child = spawn(
      "lading",
      [
        "serve",
        "--data-dir",
        join(home, "data"),
        "--api-listen",
        "127.0.0.1:0",
        "--registry-listen",
        "127.0.0.1:0",
        "--log-level",
        "warn",
      ],
      { env, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    child.stderr.on("data", (d) => {
      stderr += d;
    });
    const closed = new Promise<[number | null, string | null]>((resolve) =>
      child.on("close", (code, signal) => resolve([code, signal])),
    );
    await new Promise<void>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        if (d.toString().includes("API on")) resolve();
      });
      closed.then(() => reject(new Error(`lading serve exited: ${stderr}`)));
    });
    child.kill("SIGTERM");
    assert.deepEqual(await closed, [0, null]);
  });

  it("through the checkout's bin/ on PATH, kill of the pid you got frees the receiver's port", async () => {
    // The README's events quick start: `lading events receive … &`, later `kill $!`.
    const free = createServer().listen(0, "127.0.0.1");
    await once(free, "listening");
    const { port } = free.address() as AddressInfo;
    await new Promise((resolve) => free.close(resolve));
    const documented = { ...env, PATH: [join(repo, "bin"), "/usr/bin", "/bin"].join(":") };
    const child = spawn(
      "lading",
      // A group uid: a name would be looked up through the API, which needs a sign-in.
      ["events", "receive", "--group", "a".repeat(40), "--listen", `127.0.0.1:${port}`],
      {
        env: documented,
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    const closed = new Promise<[number | null, string | null]>((resolve) =>
      child.on("close", (code, signal) => resolve([code, signal])),
    );
    let said = "";
    await new Promise<void>((resolve, reject) => {
      const look = (d: Buffer) => {
        said += d;
        if (said.includes("receiving on")) resolve();
      };
      child.stdout.on("data", look);
      child.stderr.on("data", look);
      closed.then(() => reject(new Error(`the receiver exited: ${said}`)));
    });
    child.kill("SIGTERM");
    // The receiver stops cleanly on SIGTERM; the launcher passes its exit on.
    assert.deepEqual(await closed, [0, null]);
    const again = createServer().listen(port, "127.0.0.1");
    await once(again, "listening");
    await new Promise((resolve) => again.close(resolve));
  });

  it("says what to do when no Node that runs Lading is at hand", async (t) => {
    const systemVersion = (await runFromPath(systemNode, ["--version"], env)).stdout.trim();
    const [major, minor] = systemVersion.slice(1).split(".").map(Number);
    if (major > 24 || (major === 24 && minor >= 16)) {
      t.skip(`${systemNode} is ${systemVersion}, which runs Lading itself`);
      return;
    }
    const alone = join(home, "alone");
    await mkdir(join(alone, "bin"), { recursive: true });
    await writeFile(join(alone, "package.json"), '{"type": "module"}');
    for (const file of ["lading.js", "docker-credential-lading.js", "launcher.js"]) {
      await copyFile(join(repo, "bin", file), join(alone, "bin", file));
    }
    const cli = await runFromPath(systemNode, [join(alone, "bin/lading.js"), "--version"], env);
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, /^lading: Node\.js v.*run `npm install` in the Lading folder/);
    assert.equal(cli.stderr.split("\n").length, 2, cli.stderr);
    const helper = join(alone, "bin/docker-credential-lading.js");
    const got = await runFromPath(systemNode, [helper, "get"], env, "r.example");
    assert.equal(got.code, 1);
    assert.match(got.stdout, /^docker-credential-lading: .*`npm install`/);
  });
});
