import assert from "node:assert/strict";
import { PassThrough, Readable } from "node:stream";
import { test } from "node:test";
import { gzipSync, zstdCompressSync } from "node:zlib";
import { decompressLayer, layerCompression } from "./layer-stream.ts";

async function text(stream: Readable): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

test("layer media types map to their compression; parameters and case do not matter", () => {
  assert.equal(layerCompression("application/vnd.oci.image.layer.v1.tar+gzip"), "gzip");
  assert.equal(layerCompression("application/vnd.docker.image.rootfs.diff.tar.gzip"), "gzip");
  assert.equal(layerCompression("application/vnd.oci.image.layer.v1.tar+zstd"), "zstd");
  assert.equal(layerCompression("application/vnd.oci.image.layer.v1.tar"), "none");
  assert.equal(layerCompression("Application/VND.oci.image.layer.v1.tar+gzip; x=y"), "gzip");
  assert.equal(layerCompression("application/vnd.in-toto+json"), undefined);
});

test("gzip, zstd and plain layers decompress to the tar bytes", async () => {
  const body = "tar bytes ".repeat(1000);
  const gzip = decompressLayer(
    Readable.from([gzipSync(body)]),
    "application/vnd.oci.image.layer.v1.tar+gzip",
  );
  const zstd = decompressLayer(
    Readable.from([zstdCompressSync(body)]),
    "application/vnd.oci.image.layer.v1.tar+zstd",
  );
  const plain = decompressLayer(
    Readable.from([Buffer.from(body)]),
    "application/vnd.oci.image.layer.v1.tar",
  );
  for (const opened of [gzip, zstd, plain]) {
    assert.equal(opened.error, undefined);
    assert.equal(await text(opened.stream as Readable), body);
  }
});

test("an unknown media type is an error value, not a throw", () => {
  const opened = decompressLayer(Readable.from([]), "application/vnd.in-toto+json");
  assert.equal(opened.stream, undefined);
  assert.match(opened.error ?? "", /unsupported layer media type "application\/vnd.in-toto\+json"/);
});

test("a failing source fails the decompressed stream instead of leaving it hanging", async () => {
  const source = new PassThrough();
  const opened = decompressLayer(source, "application/vnd.oci.image.layer.v1.tar+gzip");
  source.destroy(new Error("connection reset"));
  await assert.rejects(text(opened.stream as Readable), /connection reset/);
});

test("a corrupt gzip blob fails the stream", async () => {
  const opened = decompressLayer(
    Readable.from([Buffer.from("not gzip at all")]),
    "application/vnd.oci.image.layer.v1.tar+gzip",
  );
  await assert.rejects(text(opened.stream as Readable));
});
