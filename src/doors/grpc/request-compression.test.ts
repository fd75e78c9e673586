import assert from "node:assert/strict";
import { test } from "node:test";
import { brotliCompressSync, constants, gunzipSync } from "node:zlib";
import { Code, ConnectError } from "@connectrpc/connect";
import { requestCompressions } from "./request-compression.ts";

const [gzip, br] = requestCompressions;
const body = Buffer.from(JSON.stringify({ message: "x".repeat(50_000), n: [1, 2, 3] }));

test("answers are compressed with gzip, or with brotli at quality 4 (not the library's 11)", async () => {
  assert.deepEqual([gzip.name, br.name], ["gzip", "br"]);
  assert.deepEqual(gunzipSync(await gzip.compress(body)), body);
  const quality4 = brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: 4 } });
  assert.deepEqual(Buffer.from(await br.compress(body)), quality4);
  assert.deepEqual(Buffer.from(await br.decompress(quality4, 1024 * 1024)), body);
});

test("a request body that does not decompress is the client's error", async () => {
  for (const compression of requestCompressions) {
    const error = await compression.decompress(Buffer.from("not compressed"), 1024).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    assert.equal(error?.code, Code.InvalidArgument, compression.name);
  }
});
