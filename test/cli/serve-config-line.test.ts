import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";

const cli = new URL("../../bin/lading.js", import.meta.url).pathname;

/** Starts `lading serve` in `cwd` and returns what it printed up to its ready line. */
function startedLines(cwd: string, args: string[] = []): Promise<string> {
  const child = spawn(process.execPath, [cli, "serve", "--log-level", "warn", ...args], {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH },
  });
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      if (out.includes("API on")) child.kill("SIGTERM");
    });
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(out) : reject(new Error(`exit ${code}`))));
  });
}

describe("lading serve names the config file it read", () => {
  const dir = mkdtempSync(join(tmpdir(), "lading-serve-config-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const ports = ["--api-listen", "127.0.0.1:0", "--registry-listen", "127.0.0.1:0"];

  it("says so when ./lading.yaml is read, before the ready line", async () => {
    const folder = join(dir, "with-file");
    mkdirSync(folder);
    writeFileSync(join(folder, "lading.yaml"), "data-dir: from-yaml\n");
    const out = await startedLines(folder, ports);
    assert.match(
      out,
      /^lading: settings from lading\.yaml \(then environment, then flags\)\nlading: API on /,
    );
    assert.ok(existsSync(join(folder, "from-yaml", "lading.db")), "the file's data-dir was used");
  });

  it("says there is none otherwise", async () => {
    const folder = join(dir, "without");
    mkdirSync(folder);
    const out = await startedLines(folder, ports);
    assert.match(
      out,
      /^lading: no config file \(settings from flags, environment and defaults\)\n/,
    );
  });
});
