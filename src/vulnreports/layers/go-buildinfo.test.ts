import assert from "node:assert/strict";
import { createReadStream, existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { PackageURL } from "packageurl-js";
import { layer, layersOf } from "../../../test/support/tar-layers.ts";
import { parseGoBuildInfo } from "./go-buildinfo.ts";
import { GoBuildInfoSniffer } from "./go-buildinfo-sniffer.ts";
import { scanImagePackages } from "./scan-image-packages.ts";

const FIXTURE = new URL("../../../test/fixtures/binaries/go-buf/", import.meta.url);
const BUF = new URL("../../../node_modules/@bufbuild/buf-linux-x64/bin/buf", import.meta.url);
const fixture = (name: string) => readFile(new URL(name, FIXTURE));

/** `name version` lines, decoded from the same bytes by an independent script (ORIGIN.md). */
async function expected(): Promise<string[]> {
  return (await fixture("expected-modules.txt")).toString("utf8").trim().split("\n").sort();
}

/**
 * A binary made of the real buf executable's ELF header, padding to the 16-byte boundary the
 * header had in it, its real build info, and trailing bytes: what the sniffer sees, smaller.
 */
async function binary(padding = 45_699_072 % 4096): Promise<Buffer> {
  const elf = await fixture("elf-header.bin");
  const info = await fixture("buildinfo.bin");
  return Buffer.concat([elf, Buffer.alloc(padding + 4096), info, Buffer.alloc(100)]);
}

test("the real build info of buf lists stdlib and every module, nothing else", async () => {
  const db = parseGoBuildInfo(await fixture("buildinfo.bin"), "usr/bin/buf");
  assert.deepEqual(db.errors, []);
  const found = db.packages.map((p) => `${p.name} ${p.version}`).sort();
  assert.deepEqual(found, await expected());
  assert.equal(found.length, 86);
  const stdlib = db.packages.find((p) => p.name === "stdlib");
  assert.equal(stdlib?.purl, "pkg:golang/stdlib@1.27.3");
  const protobuf = db.packages.find((p) => p.name === "google.golang.org/protobuf");
  assert.match(String(protobuf?.purl), /^pkg:golang\/google\.golang\.org\/protobuf@v1\./);
  for (const { purl, ecosystem, source } of db.packages) {
    assert.equal(PackageURL.fromString(purl).toString(), purl);
    assert.equal(ecosystem, "Go");
    assert.equal(source, "usr/bin/buf");
  }
});

test("the sniffer finds the aligned header across any chunking, keeping a bounded window", async () => {
  const bytes = await binary();
  const info = await fixture("buildinfo.bin");
  for (const size of [1, 7, 15, 16, 17, 4096, bytes.length]) {
    const sniffer = new GoBuildInfoSniffer();
    for (let at = 0; at < bytes.length; at += size) sniffer.push(bytes.subarray(at, at + size));
    const kept = sniffer.result();
    assert.ok(kept, `chunks of ${size}`);
    assert.deepEqual(kept.subarray(0, info.length), info);
    assert.equal(kept.length, info.length + 100);
  }
  const small = new GoBuildInfoSniffer(1000);
  small.push(bytes);
  assert.equal(small.result()?.length, 1000);
  assert.equal(small.wantsMore, false);
});

test("a header off the 16-byte boundary, or in a file that is no ELF, is not taken", async () => {
  const misaligned = new GoBuildInfoSniffer();
  misaligned.push(await binary((45_699_072 % 4096) + 8));
  assert.equal(misaligned.result(), undefined);
  const script = new GoBuildInfoSniffer();
  script.push(Buffer.concat([Buffer.from("#!/bin/sh\n"), await binary()]));
  assert.equal(script.result(), undefined);
  assert.equal(script.wantsMore, false);
});

test("cut or old build info is an error, not a crash", async () => {
  const info = await fixture("buildinfo.bin");
  assert.match(parseGoBuildInfo(info.subarray(0, 20), "b").errors[0], /cut short/);
  assert.match(parseGoBuildInfo(info.subarray(0, 2000), "b").errors[0], /run past/);
  const old = Buffer.from(info);
  old[15] = 0;
  assert.match(parseGoBuildInfo(old, "b").errors[0], /before Go 1\.18/);
});

test("an image layer: executables are sniffed, other files and non-executables are not", async () => {
  const bytes = await binary();
  const result = await scanImagePackages(
    layersOf(
      await layer([
        { name: "usr/local/bin/buf", content: bytes, mode: 0o755 },
        { name: "opt/copy-not-executable", content: bytes, mode: 0o644 },
      ]),
    ),
  );
  assert.deepEqual(result.errors, []);
  const found = result.packages.map((p) => `${p.name} ${p.version}`).sort();
  assert.deepEqual(found, await expected());
  assert.ok(result.packages.every((p) => p.source === "usr/local/bin/buf"));
});

test("the number of binaries kept is bounded", async () => {
  const bytes = await binary();
  const entries = [1, 2, 3].map((n) => ({ name: `bin/b${n}`, content: bytes, mode: 0o755 }));
  const result = await scanImagePackages(layersOf(await layer(entries)), { maxSniffed: 2 });
  assert.deepEqual(new Set(result.packages.map((p) => p.source)), new Set(["bin/b1", "bin/b2"]));
  assert.match(result.skipped[0].reason, /more than 2 binaries with build info: 1 not kept/);
});

test("the real buf binary, streamed whole through the sniffer, gives the same list", {
  skip: !existsSync(BUF) && "buf is not installed in node_modules",
}, async () => {
  const sniffer = new GoBuildInfoSniffer();
  for await (const chunk of createReadStream(BUF)) {
    if (sniffer.wantsMore) sniffer.push(chunk as Buffer);
  }
  const window = sniffer.result();
  assert.ok(window);
  assert.ok(window.length <= 64 * 1024);
  const db = parseGoBuildInfo(window, "buf");
  assert.deepEqual(db.errors, []);
  // The installed buf may be newer than the fixture's: its list is checked for shape only.
  assert.ok(db.packages.some((p) => p.name === "stdlib"));
  assert.ok(db.packages.length > 10);
});
