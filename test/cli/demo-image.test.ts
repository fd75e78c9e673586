import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { runNode } from "./cli-support.ts";

const cli = new URL("../../bin/lading.js", import.meta.url).pathname;

describe("lading admin demo-image", () => {
  const dir = mkdtempSync(join(tmpdir(), "lading-demo-image-"));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const lading = (...args: string[]) =>
    runNode(cli, ["admin", "demo-image", ...args], { PATH: process.env.PATH, HOME: dir });

  it("writes an OCI layout whose index names the tag and the printed digest", async () => {
    const out = join(dir, "hello");
    const ran = await lading("--out", out, "--tag", "v1", "--text", "hi");
    assert.equal(ran.code, 0, ran.stderr);
    const printed = JSON.parse(ran.stdout) as { layout: string; digest: string };
    assert.equal(printed.layout, `oci:${out}:v1`);
    const index = JSON.parse(readFileSync(join(out, "index.json"), "utf8"));
    assert.equal(index.manifests[0].digest, printed.digest);
    assert.equal(index.manifests[0].annotations["org.opencontainers.image.ref.name"], "v1");
  });

  it("refuses a folder that is not empty, and writes nothing into it", async () => {
    const busy = join(dir, "busy");
    await lading("--out", busy);
    writeFileSync(join(busy, "mine.txt"), "keep");
    const ran = await lading("--out", busy, "--tag", "other");
    assert.equal(ran.code, 2);
    assert.match(ran.stderr, /is not empty; name a new or empty directory/);
    const index = JSON.parse(readFileSync(join(busy, "index.json"), "utf8"));
    assert.equal(index.manifests[0].annotations["org.opencontainers.image.ref.name"], "latest");
  });

  it("refuses a tag that is not an OCI tag, and a missing --out", async () => {
    const bad = await lading("--out", join(dir, "bad"), "--tag", "../up");
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--tag must be an OCI tag/);
    const missing = await lading();
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /--out/);
  });
});
