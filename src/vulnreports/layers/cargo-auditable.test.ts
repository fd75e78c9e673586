import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { readFile } from "node:fs/promises";
import { test } from "node:test";
import { deflateSync } from "node:zlib";
import { PackageURL } from "packageurl-js";
import { layer, layersOf } from "../../../test/support/tar-layers.ts";
import { CARGO_AUDIT_MAX_JSON, parseCargoAuditable } from "./cargo-auditable.ts";
import {
  CARGO_AUDIT_TAG,
  CargoAuditableSniffer,
  isCargoAuditableWindow,
} from "./cargo-auditable-sniffer.ts";
import { scanImagePackages } from "./scan-image-packages.ts";

const FIXTURE = new URL("../../../test/fixtures/binaries/rust-auditable/", import.meta.url);
const binary = () => readFile(new URL("hello-auditable", FIXTURE));

/** The runtime crates.io packages of the fixture's list (its README). */
const EXPECTED = [
  "pkg:cargo/itoa@1.0.10",
  "pkg:cargo/ryu@1.0.17",
  "pkg:cargo/serde@1.0.197",
  "pkg:cargo/serde_json@1.0.114",
  "pkg:cargo/smallvec@1.6.0",
];

test("a real Rust binary's .dep-v0: its runtime crates from crates.io, nothing else", async () => {
  const result = await scanImagePackages(
    layersOf(
      await layer([
        { name: "usr/local/bin/hello-auditable", content: await binary(), mode: 0o755 },
      ]),
    ),
  );
  assert.deepEqual(result.errors, []);
  assert.deepEqual(
    result.packages.map((p) => p.purl),
    EXPECTED,
  );
  for (const p of result.packages) {
    assert.equal(PackageURL.fromString(p.purl).toString(), p.purl, "canonical");
    assert.equal(p.ecosystem, "crates.io");
    assert.equal(p.source, "usr/local/bin/hello-auditable");
  }
});

test("the data is found wherever the chunks of the stream cut it", async () => {
  const bytes = await binary();
  for (const size of [1, 7, 62, 63, 64, 65, 4096, 0x4d10, 0x4d11, 0x4d10 - 30]) {
    const sniffer = new CargoAuditableSniffer();
    for (let at = 0; at < bytes.length && sniffer.wantsMore; at += size) {
      sniffer.push(bytes.subarray(at, at + size));
    }
    const kept = sniffer.result();
    assert.ok(kept && isCargoAuditableWindow(kept), `chunks of ${size}`);
    const read = parseCargoAuditable(kept, "b");
    assert.deepEqual(read.packages.map((p) => p.purl).sort(), EXPECTED, `chunks of ${size}`);
  }
});

/** An ELF-looking file holding `json` compressed, after some bytes of padding. */
function elfWith(json: string, padding = 100): Buffer {
  return Buffer.concat([
    Buffer.from("\x7fELF", "latin1"),
    Buffer.alloc(padding, 0x78),
    deflateSync(json),
    Buffer.alloc(100),
  ]);
}

function sniff(bytes: Buffer, limit?: number): Buffer | undefined {
  const sniffer = new CargoAuditableSniffer(limit);
  sniffer.push(bytes);
  return sniffer.result();
}

test("only ELF files are looked at, and only a bounded window is kept", async () => {
  const json = '{"packages":[{"name":"a","version":"1.0.0","source":"crates.io"}]}';
  assert.equal(sniff(Buffer.concat([Buffer.from("#!/bin/sh\n"), deflateSync(json)])), undefined);
  assert.ok(sniff(elfWith(json)));
  // Base64 of random bytes barely compresses: the stream is far longer than the window.
  const long = randomBytes(20_000).toString("base64");
  const kept = sniff(elfWith(`{"packages":[{"name":"${long}"}]}`), 1024);
  assert.equal(kept?.length, CARGO_AUDIT_TAG.length + 1024);
  assert.deepEqual(parseCargoAuditable(kept as Buffer, "b").errors, [
    "b: cargo-auditable data runs past the bytes kept",
  ]);
  // Other zlib streams in a binary are not taken for it.
  assert.equal(sniff(elfWith('{"other":1}')), undefined);
});

test("a bomb stops at the JSON limit; malformed lists are refused whole", () => {
  const parse = (json: string) => parseCargoAuditable(sniff(elfWith(json)) as Buffer, "b").errors;
  const bomb = `{"packages":[${" ".repeat(CARGO_AUDIT_MAX_JSON + 1)}]}`;
  assert.deepEqual(parse(bomb), [
    `b: cargo-auditable data inflates to more than ${CARGO_AUDIT_MAX_JSON} bytes`,
  ]);
  const ok = '{"name":"a","version":"1.0.0","source":"crates.io"}';
  const cases: [string, RegExp][] = [
    ['{"packages":{}}', /has no packages list/],
    ['{"packages":[1]}', /packages\[0\] is not an object/],
    ['{"packages":[{"version":"1.0.0","source":"crates.io"}]}', /packages\[0\] has no name/],
    [`{"packages":[${ok},{"name":"b","source":"crates.io"}]}`, /packages\[1\] has no version/],
    ['{"packages":[{"name":"a","version":"1.0.0"}]}', /has no source/],
    ['{"packages":[{"name":"a","version":"1","source":"local","kind":"dev"}]}', /kind "dev"/],
    ['{"packages":[{"name":"a","version":"1","source":"local","root":1}]}', /root is not/],
    [`{"packages":[{"name":"a","version":"1","source":"local","dependencies":[1]}]}`, /indices/],
    ['{"packages":[{"name":"a","version":"1","source":"local"}', /not zlib-compressed JSON/],
  ];
  for (const [json, reason] of cases) {
    const errors = parse(json);
    assert.equal(errors.length, 1, json);
    assert.match(errors[0], reason, json);
  }
});

test("sources other than crates.io, build crates and the root are left out", () => {
  const json = JSON.stringify({
    packages: [
      { name: "app", version: "1.0.0", source: "local", root: true, dependencies: [1, 2, 3, 4] },
      { name: "alt", version: "1.0.0", source: "registry" },
      { name: "other", version: "1.0.0", source: { Other: "hg" } },
      { name: "cc", version: "1.0.0", source: "crates.io", kind: "build" },
      { name: "libc", version: "0.2.153", source: "crates.io", kind: "runtime" },
    ],
  });
  const read = parseCargoAuditable(sniff(elfWith(json)) as Buffer, "b");
  assert.deepEqual(read, {
    packages: [
      {
        name: "libc",
        version: "0.2.153",
        purl: "pkg:cargo/libc@0.2.153",
        ecosystem: "crates.io",
        licence: undefined,
        source: "b",
      },
    ],
    errors: [],
  });
});
