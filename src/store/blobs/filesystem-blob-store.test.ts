import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtemp, readdir, rm, stat, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { after, before, describe, it } from "node:test";
import { createFilesystemBlobStore } from "./filesystem-blob-store.ts";

describe("filesystem blob store", () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), "lading-fs-blobs-"));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it("lays blobs out as blobs/<algorithm>/<2 hex>/<hex> and leaves no temp file", async () => {
    const store = createFilesystemBlobStore({ dir });
    const hex = createHash("sha256").update("layout").digest("hex");
    await store.put(Readable.from([Buffer.from("layout")]), { expectedDigest: `sha256:${hex}` });
    assert.ok((await stat(join(dir, "blobs", "sha256", hex.slice(0, 2), hex))).isFile());
    assert.deepEqual(await readdir(join(dir, "tmp")), []);
  });

  it("sweeps only its own temp files older than the cutoff", async () => {
    const store = createFilesystemBlobStore({ dir });
    const crashed = join(dir, "tmp", `put-${"a".repeat(32)}`);
    const fresh = join(dir, "tmp", `upload-${"b".repeat(32)}`);
    const foreign = join(dir, "tmp", "not-ours");
    for (const path of [crashed, fresh, foreign]) await writeFile(path, "partial");
    const hourAgo = new Date(Date.now() - 3_600_000);
    await utimes(crashed, hourAgo, hourAgo);
    await utimes(foreign, hourAgo, hourAgo);
    assert.equal(await store.sweep(60_000), 1);
    assert.deepEqual(
      (await readdir(join(dir, "tmp"))).sort(),
      [`upload-${"b".repeat(32)}`, "not-ours"].sort(),
    );
  });

  it("truncates what an interrupted append left beyond the recorded size", async () => {
    const store = createFilesystemBlobStore({ dir });
    let state = await store.createUpload();
    state = await store.appendUpload(state, Readable.from([Buffer.from("kept ")]));
    await writeFile(join(dir, "tmp", state.file as string), "kept GARBAGE FROM A CRASH");
    const replica = createFilesystemBlobStore({ dir });
    state = await replica.appendUpload(state, Readable.from([Buffer.from("and resumed")]));
    const digest = `sha256:${createHash("sha256").update("kept and resumed").digest("hex")}`;
    assert.deepEqual(await replica.commitUpload(state, digest), { digest, size: 16 });
  });
});
