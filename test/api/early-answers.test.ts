import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/server.ts";

const size = 3 * 1024 * 1024;

/** 3 MiB in 64 KiB chunks, sent as they come (chunked): the server answers before the end. */
function streamedBody(): ReadableStream<Uint8Array> {
  const chunk = new Uint8Array(64 * 1024).fill(0x61);
  let sent = 0;
  return new ReadableStream({
    async pull(controller) {
      await new Promise((r) => setTimeout(r, 1));
      controller.enqueue(chunk);
      sent += chunk.length;
      if (sent >= size) controller.close();
    },
  });
}

/**
 * An answer sent while the client is still sending its body (a 413 over the body limit): the
 * listener reads and discards the rest instead of resetting the connection under the client,
 * so every client reads the answer rather than EPIPE or ECONNRESET.
 */
describe("early answers on the API listener", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer("sqlite");
  });
  after(() => server.close());

  it("lets 20 clients sending 3 MiB bodies each read their 413", async () => {
    const declared = JSON.stringify({ name: "x", description: "d".repeat(size) });
    const outcomes = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        fetch(`${server.apiUrl}/iam/v2/identities/${server.org.groupUid}`, {
          method: "POST",
          body: i % 2 === 0 ? streamedBody() : declared,
          duplex: "half",
          headers: {
            authorization: `Bearer ${server.org.token}`,
            "content-type": "application/json",
          },
        } as RequestInit).then(
          async (res) => `${res.status} ${((await res.json()) as { code: number }).code}`,
          (error: Error) => `${error.message}: ${(error.cause as Error | undefined)?.message}`,
        ),
      ),
    );
    assert.deepEqual(outcomes, Array(20).fill("413 3"));
  });
});
