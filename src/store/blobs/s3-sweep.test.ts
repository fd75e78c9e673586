import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { S3Client } from "@aws-sdk/client-s3";
import { sweepS3 } from "./s3-sweep.ts";

const hour = 3_600_000;

/** An S3 client answering from `uploads` and recording what was aborted. */
function stubClient(uploads: { Key: string; UploadId: string; Initiated: Date }[] | "unsupported") {
  const aborted: string[] = [];
  const client = {
    async send(command: { constructor: { name: string }; input: Record<string, unknown> }) {
      switch (command.constructor.name) {
        case "ListObjectsV2Command":
          return { Contents: [] };
        case "ListMultipartUploadsCommand":
          if (uploads === "unsupported") {
            throw Object.assign(new Error("not implemented"), { name: "NotImplemented" });
          }
          assert.equal(command.input.Prefix, "registry/");
          return { Uploads: uploads, IsTruncated: false };
        case "AbortMultipartUploadCommand":
          aborted.push(String(command.input.UploadId));
          return {};
        default:
          throw new Error(`unexpected ${command.constructor.name}`);
      }
    },
  };
  return { client: client as unknown as S3Client, aborted };
}

describe("sweepS3", () => {
  it("aborts multipart uploads a killed write left, once a day old", async () => {
    const { client, aborted } = stubClient([
      {
        Key: "registry/blobs/sha256/aa",
        UploadId: "killed",
        Initiated: new Date(Date.now() - 25 * hour),
      },
      { Key: "registry/tmp/bb", UploadId: "running", Initiated: new Date(Date.now() - 2 * hour) },
    ]);
    const removed = await sweepS3({ client, bucket: "b", base: "registry/" }, hour, new Set());
    assert.deepEqual(aborted, ["killed"]);
    assert.equal(removed, 1);
  });

  it("carries on where multipart uploads cannot be listed", async () => {
    const { client } = stubClient("unsupported");
    assert.equal(await sweepS3({ client, bucket: "b", base: "registry/" }, hour, new Set()), 0);
  });
});
