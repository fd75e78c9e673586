import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { parseBlobStoreUrl } from "./blob-store-url.ts";
import { createBlobStore } from "./create-blob-store.ts";

describe("parseBlobStoreUrl", () => {
  it("reads bucket, prefix and the query options", () => {
    const { value, error } = parseBlobStoreUrl(
      "s3://my-bucket/lading/prod/?endpoint=http://127.0.0.1:9000&region=eu-west-1&forcePathStyle=true",
    );
    assert.equal(error, undefined);
    assert.deepEqual(value, {
      driver: "s3",
      options: {
        bucket: "my-bucket",
        prefix: "lading/prod",
        endpoint: "http://127.0.0.1:9000",
        region: "eu-west-1",
        forcePathStyle: true,
      },
    });
    assert.deepEqual(parseBlobStoreUrl("s3://bucket").value?.options, {
      bucket: "bucket",
      prefix: "",
    });
  });

  it("refuses what it does not understand, with a reason", () => {
    for (const url of [
      "/var/lib/blobs",
      "file:///tmp/blobs",
      "s3://Bad_Bucket/x",
      "s3://key:secret@bucket/x",
      "s3://bucket/a%2F..%2Fb",
      "s3://bucket/x?endpoint=ftp://host",
      "s3://bucket/x?forcePathStyle=yes",
      "s3://bucket/x?region=EU%20West",
      "s3://bucket/x?acl=public",
    ]) {
      const { value, error } = parseBlobStoreUrl(url);
      assert.equal(value, undefined, url);
      assert.match(error ?? "", /\w/, url);
    }
  });
});

describe("createBlobStore", () => {
  it("defaults to the filesystem under <dataDir>/blobs", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "lading-blobs-config-"));
    try {
      const store = await createBlobStore({ dataDir });
      const { digest } = await store.put(Readable.from([Buffer.from("x")]));
      const hex = digest.slice("sha256:".length);
      const { stat } = await import("node:fs/promises");
      assert.ok(
        (await stat(join(dataDir, "blobs", "blobs", "sha256", hex.slice(0, 2), hex))).isFile(),
      );
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it("rejects a malformed URL", async () => {
    await assert.rejects(createBlobStore({ dataDir: ".", blobStoreUrl: "gs://x" }), /blob store/);
  });
});
