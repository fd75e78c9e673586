import assert from "node:assert/strict";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runNode } from "./cli-support.ts";

const cli = new URL("../../bin/lading.js", import.meta.url).pathname;

describe("lading serve and admin read one configuration file", () => {
  const dir = mkdtempSync(join(tmpdir(), "lading-config-cli-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const lading = (args: string[], env: NodeJS.ProcessEnv = {}, cwd = dir) =>
    runNode(cli, args, { PATH: process.env.PATH, HOME: dir, ...env }, { cwd });

  it("admin commands use ./lading.yaml as serve does, and say which store they created in", async () => {
    writeFileSync(join(dir, "lading.yaml"), "data-dir: ./server-store\n");
    const boot = await lading(["admin", "bootstrap", "--org", "acme"]);
    assert.equal(boot.code, 0, boot.stderr);
    assert.ok(existsSync(join(dir, "server-store", "lading.db")), "the file's data-dir was used");
    assert.match(
      boot.stderr,
      /created the first organisation in the embedded store in .*server-store/,
    );
    const again = await lading(["admin", "bootstrap", "--org", "acme"]);
    assert.equal(again.stderr, "", "a second run says nothing");
  });

  it("admin token on an empty store says so instead of 'no identity'", async () => {
    const token = await lading([
      "admin",
      "token",
      "--data-dir",
      join(dir, "empty"),
      "--identity",
      "0000000000000000000000000000000000000000/0000000000000000",
    ]);
    assert.equal(token.code, 2);
    assert.match(
      token.stderr,
      /holds no organisations; pass the --config, --database-url or --data-dir/,
    );
  });

  it("refuses a bad file at start, naming the file and the key", async () => {
    const bad = join(dir, "bad.yaml");
    writeFileSync(bad, "max-connections: lots\n");
    const serve = await lading(["serve", "--config", bad]);
    assert.equal(serve.code, 2);
    assert.match(serve.stderr, /max-connections must be a number .*\(in .*bad\.yaml\)/);
    const unknown = join(dir, "unknown.yaml");
    writeFileSync(unknown, "api-lsten: 127.0.0.1:1\n");
    const viaEnv = await lading(["serve"], { LADING_CONFIG: unknown });
    assert.equal(viaEnv.code, 2);
    assert.match(viaEnv.stderr, /unknown key "api-lsten"/);
  });
});
