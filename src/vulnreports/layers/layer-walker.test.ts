import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import {
  DOCKER_GZIP,
  layer,
  layersOf,
  OCI_GZIP,
  OCI_TAR,
  OCI_ZSTD,
  tarBytes,
} from "../../../test/support/tar-layers.ts";
import { type LayerScan, scanLayers } from "./layer-walker.ts";

const wantDb = (path: string) => path.startsWith("db/") || path.startsWith("opt/");

function contents(scan: LayerScan): Record<string, string> {
  return Object.fromEntries([...scan.files].map(([p, b]) => [p, b.toString("utf8")]));
}

test("only wanted regular files are returned, their paths normalised", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([
        { name: "./db/", type: "directory" },
        { name: "./db/a", content: "A" },
        { name: "/db/b", content: "B" },
        { name: "etc/other", content: "not wanted" },
      ]),
    ),
    wantDb,
  );
  assert.deepEqual(contents(scan), { "db/a": "A", "db/b": "B" });
  assert.deepEqual(scan.skipped, []);
  assert.deepEqual(scan.errors, []);
});

test("gzip (OCI and Docker), zstd and plain tar layers are all read", async () => {
  for (const mediaType of [OCI_GZIP, DOCKER_GZIP, OCI_ZSTD, OCI_TAR]) {
    const scan = await scanLayers(
      layersOf(await layer([{ name: "db/x", content: mediaType }], mediaType)),
      wantDb,
    );
    assert.deepEqual(contents(scan), { "db/x": mediaType }, mediaType);
  }
});

test("a file replaced in an upper layer has the upper contents", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([{ name: "db/a", content: "old" }]),
      await layer([{ name: "db/a", content: "new" }], OCI_ZSTD),
    ),
    wantDb,
  );
  assert.deepEqual(contents(scan), { "db/a": "new" });
});

test("a whiteout deletes a lower file, and a directory whiteout its whole subtree", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([
        { name: "db/keep", content: "k" },
        { name: "db/gone", content: "g" },
        { name: "opt/app/x/package.json", content: "x" },
        { name: "opt/app/y", content: "y" },
        { name: "opt/apple", content: "not under opt/app" },
      ]),
      await layer([
        { name: "db/.wh.gone", content: "" },
        { name: "opt/.wh.app", content: "" },
      ]),
    ),
    wantDb,
  );
  assert.deepEqual(contents(scan), { "db/keep": "k", "opt/apple": "not under opt/app" });
});

test("a whiteout affects only lower layers: a later layer can bring the file back", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([{ name: "db/a", content: "1" }]),
      await layer([{ name: "db/.wh.a", content: "" }]),
      await layer([{ name: "db/a", content: "3" }]),
    ),
    wantDb,
  );
  assert.deepEqual(contents(scan), { "db/a": "3" });
});

test("an opaque directory hides everything lower under it but keeps its own layer's files", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([
        { name: "opt/lib/a", content: "a" },
        { name: "opt/lib/deep/b", content: "b" },
        { name: "opt/other", content: "o" },
      ]),
      await layer([
        // The marker comes after the layer's own file: order within a layer does not matter.
        { name: "opt/lib/", type: "directory" },
        { name: "opt/lib/c", content: "c" },
        { name: "opt/lib/.wh..wh..opq", content: "" },
      ]),
    ),
    wantDb,
  );
  assert.deepEqual(contents(scan), { "opt/lib/c": "c", "opt/other": "o" });
});

test("a symlink at a wanted path is not followed, and replaces the lower file", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([
        { name: "db/a", content: "real" },
        { name: "db/target", content: "t" },
      ]),
      await layer([
        { name: "db/a", type: "symlink", linkname: "target" },
        { name: "db/hard", type: "link", linkname: "db/target" },
      ]),
    ),
    wantDb,
  );
  assert.deepEqual(contents(scan), { "db/target": "t" });
});

test("a directory replacing a lower file removes the file", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([{ name: "db/a", content: "file" }]),
      await layer([
        { name: "db/a/", type: "directory" },
        { name: "db/a/b", content: "inside" },
      ]),
    ),
    wantDb,
  );
  assert.deepEqual(contents(scan), { "db/a/b": "inside" });
});

test("entries with `..` are ignored, as data and as whiteouts", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([{ name: "db/a", content: "a" }]),
      await layer([
        { name: "../db/evil", content: "e" },
        { name: "db/../db/a", content: "overwritten?" },
        { name: "x/../db/.wh.a", content: "" },
      ]),
    ),
    wantDb,
  );
  assert.deepEqual(contents(scan), { "db/a": "a" });
});

test("a wanted file over the per-file cap is recorded as skipped and the scan goes on", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([
        { name: "db/big", content: Buffer.alloc(2048, 1) },
        { name: "db/small", content: "s" },
      ]),
    ),
    wantDb,
    { maxFileBytes: 1024 },
  );
  assert.deepEqual(contents(scan), { "db/small": "s" });
  assert.deepEqual(scan.skipped, [
    { path: "db/big", reason: "2048 bytes, more than the 1024-byte limit per file" },
  ]);
});

test("a skipped file deleted by an upper layer is no longer reported", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([{ name: "db/big", content: Buffer.alloc(2048) }]),
      await layer([{ name: "db/.wh.big", content: "" }]),
    ),
    wantDb,
    { maxFileBytes: 1024 },
  );
  assert.deepEqual(scan.skipped, []);
});

test("past the wanted-file limit, new paths are counted not read, and replacements still apply", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([
        { name: "db/1", content: "1" },
        { name: "db/2", content: "2" },
      ]),
      await layer([
        { name: "db/3", content: "3" },
        { name: "db/4", content: "4" },
        { name: "db/2", content: "two" },
      ]),
    ),
    wantDb,
    { maxFiles: 2 },
  );
  assert.deepEqual(contents(scan), { "db/1": "1", "db/2": "two" });
  assert.deepEqual(scan.skipped, [
    { path: "db/3", reason: "more than 2 wanted files: 2 not read, this the first" },
  ]);
});

test("the total-bytes bound skips files that would exceed it", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([
        { name: "db/a", content: Buffer.alloc(600) },
        { name: "db/b", content: Buffer.alloc(600) },
      ]),
    ),
    wantDb,
    { maxTotalBytes: 1000 },
  );
  assert.deepEqual([...scan.files.keys()], ["db/a"]);
  assert.match(scan.skipped[0].reason, /past the 1000-byte limit/);
});

test("an unsupported layer is an error and the other layers are still applied", async () => {
  const scan = await scanLayers(
    layersOf(
      await layer([{ name: "db/a", content: "a" }]),
      await layer([{ name: "db/b", content: "b" }], "application/vnd.in-toto+json"),
      await layer([{ name: "db/c", content: "c" }]),
    ),
    wantDb,
  );
  assert.deepEqual(contents(scan), { "db/a": "a", "db/c": "c" });
  assert.deepEqual(scan.errors, [
    'layer 2: unsupported layer media type "application/vnd.in-toto+json"',
  ]);
});

test("a truncated layer is an error; what it held before the cut is kept", async () => {
  const whole = await tarBytes([
    { name: "db/a", content: "a" },
    { name: "db/b", content: Buffer.alloc(4096, 7) },
  ]);
  const scan = await scanLayers(
    layersOf({ mediaType: OCI_TAR, stream: PassThrough.from([whole.subarray(0, 1536)]) }),
    wantDb,
  );
  assert.deepEqual(contents(scan), { "db/a": "a" });
  assert.equal(scan.errors.length, 1);
  assert.match(scan.errors[0], /^layer 1: /);
});

test("a source failing mid-layer is an error, not a hang or a throw", async () => {
  const source = new PassThrough();
  const scanning = scanLayers(layersOf({ mediaType: OCI_GZIP, stream: source }), wantDb);
  source.write(Buffer.from([0x1f, 0x8b]));
  source.destroy(new Error("registry went away"));
  const scan = await scanning;
  assert.deepEqual(scan.errors, ["layer 1: registry went away"]);
});
