import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { type OciClient, ociClient } from "../support/oci-client.ts";
import { sha256 } from "../support/oci-layout.ts";
import { connectRaw, destroyRawConnections, within } from "../support/raw-connections.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";

const idle = 300;

/**
 * Upload sessions whose chunk never arrives whole: the request-idle timeout cuts the stalled
 * PATCH, which frees the session for the next request; the bytes of the cut chunk are dropped
 * (the session stays at its last acknowledged size).
 */
for (const pair of registryPairs) {
  describe(`interrupted uploads [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let c: OciClient;
    before(async () => {
      r = await startRegistryServer(pair, { requestIdleTimeout: `${idle}ms` });
      c = ociClient(r.registryUrl, r.ownerToken);
    });
    after(() => {
      destroyRawConnections();
      return r?.close();
    });

    const startSession = async () => {
      const res = await c.fetch("/v2/acme/stalls/blobs/uploads/", { method: "POST" });
      assert.equal(res.status, 202);
      return res.headers.get("location") as string;
    };
    /** A PATCH that declares 100 bytes, sends 10 and then nothing. */
    const stalledPatch = async (location: string) => {
      const conn = await connectRaw(Number(new URL(r.registryUrl).port));
      conn.socket.write(
        `PATCH ${location} HTTP/1.1\r\nHost: ${r.host}\r\nAuthorization: Bearer ${r.ownerToken}\r\n` +
          "Content-Type: application/octet-stream\r\nContent-Range: 0-99\r\n" +
          "Content-Length: 100\r\n\r\n0123456789",
      );
      await new Promise((resolve) => setTimeout(resolve, 100));
      return conn;
    };
    const answer = (path: string, init: RequestInit = {}) =>
      c.fetch(path, { ...init, signal: AbortSignal.timeout(10 * idle) });

    it("answers the next PATCH at the last acknowledged offset once a stalled one is cut", async () => {
      const location = await startSession();
      const stalled = await stalledPatch(location);
      const blob = Buffer.alloc(100, "b");
      const next = await answer(location, {
        method: "PATCH",
        body: new Uint8Array(blob),
        headers: { "content-range": "0-99", "content-type": "application/octet-stream" },
      });
      assert.equal(next.status, 202);
      assert.equal(next.headers.get("range"), "0-99");
      assert.notEqual(await within(stalled.closed, 2000), "timed out");
      assert.equal(stalled.received(), "");
      const done = await answer(`${location}?digest=${sha256(blob)}`, { method: "PUT" });
      assert.equal(done.status, 201);
    });

    it("answers a DELETE once a stalled PATCH is cut", async () => {
      const location = await startSession();
      await stalledPatch(location);
      assert.equal((await answer(location, { method: "DELETE" })).status, 204);
      assert.equal((await answer(location)).status, 404);
    });

    it("lets PATCHes refused before their 3 MiB bodies arrive read the 401", async () => {
      const location = await startSession();
      const body = () => {
        let sent = 0;
        return new ReadableStream<Uint8Array>({
          async pull(controller) {
            await new Promise((resolve) => setTimeout(resolve, 1));
            controller.enqueue(new Uint8Array(64 * 1024));
            sent += 64 * 1024;
            if (sent >= 3 * 1024 * 1024) controller.close();
          },
        });
      };
      const outcomes = await Promise.all(
        Array.from({ length: 10 }, () =>
          fetch(`${r.registryUrl}${location}`, {
            method: "PATCH",
            body: body(),
            duplex: "half",
            headers: { "content-type": "application/octet-stream" },
          } as RequestInit).then(
            (res) => res.status,
            (error: Error) => `${error.message}: ${(error.cause as Error | undefined)?.message}`,
          ),
        ),
      );
      assert.deepEqual(outcomes, Array(10).fill(401));
    });
  });
}
