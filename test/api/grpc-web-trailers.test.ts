import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/server.ts";

/** The frames of a gRPC-Web body: flags and bytes. */
function framesOf(body: Buffer): { flags: number; data: Buffer }[] {
  const frames = [];
  for (let i = 0; i + 5 <= body.length; ) {
    const length = body.readUInt32BE(i + 1);
    frames.push({ flags: body[i], data: body.subarray(i + 5, i + 5 + length) });
    i += 5 + length;
  }
  return frames;
}

describe("gRPC-Web trailers", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer("sqlite");
  });
  after(() => server.close());

  it("are sent uncompressed even when the client accepts gzip and they are large", async () => {
    // CreateIdentityProvider under the organisation with every other field empty: a long
    // INVALID_ARGUMENT, whose trailers exceed the size from which messages are compressed.
    const parent = Buffer.from(server.org.groupUid);
    const message = Buffer.concat([Buffer.from([10, parent.length]), parent]);
    const frame = Buffer.concat([Buffer.from([0, 0, 0, 0, message.length]), message]);
    const res = await fetch(
      `${server.apiUrl}/lading.iam.v2.IdentityProvidersService/CreateIdentityProvider`,
      {
        method: "POST",
        headers: {
          "content-type": "application/grpc-web",
          "grpc-accept-encoding": "gzip",
          authorization: `Bearer ${server.org.token}`,
        },
        body: frame,
      },
    );
    const frames = framesOf(Buffer.from(await res.arrayBuffer()));
    assert.equal(frames.length, 1);
    assert.equal(frames[0].flags, 0x80, "a trailer frame, not compressed");
    assert.ok(frames[0].data.length > 1024, "large enough to have been compressed");
    assert.match(frames[0].data.toString("latin1"), /grpc-status: 3\r\n/);
  });
});
