import assert from "node:assert/strict";
import { createReadStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { scanImagePackages } from "../../src/vulnreports/layers/scan-image-packages.ts";
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

  it("records --apk packages in a Wolfi apk database that a layer scan reads back", async () => {
    const out = join(dir, "with-packages");
    const ran = await lading(
      "--out",
      out,
      "--arch",
      "arm64",
      "--apk",
      "git=2.40.1-r0",
      "--apk",
      "curl=8.4.0-r0",
    );
    assert.equal(ran.code, 0, ran.stderr);
    const { digest } = JSON.parse(ran.stdout) as { digest: string };
    const blob = (d: string) => join(out, "blobs", ...d.split(":"));
    const manifest = JSON.parse(readFileSync(blob(digest), "utf8"));
    const scan = await scanImagePackages(
      (async function* () {
        for (const layer of manifest.layers) {
          yield { mediaType: layer.mediaType, stream: createReadStream(blob(layer.digest)) };
        }
      })(),
    );
    assert.deepEqual(scan.errors, []);
    assert.equal(scan.distro?.id, "wolfi");
    assert.deepEqual(
      scan.packages.map((p) => p.purl),
      [
        "pkg:apk/wolfi/curl@8.4.0-r0?arch=aarch64&distro=wolfi",
        "pkg:apk/wolfi/git@2.40.1-r0?arch=aarch64&distro=wolfi",
      ],
    );
    const bad = await lading("--out", join(dir, "bad-apk"), "--apk", "git");
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--apk must be NAME=VERSION/);
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
