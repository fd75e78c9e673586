import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { Code, ConnectError, createClient, type Transport } from "@connectrpc/connect";
import type { Compression } from "@connectrpc/connect/protocol";
import {
  compressionBrotli,
  compressionGzip,
  createConnectTransport,
  createGrpcTransport,
  createGrpcWebTransport,
} from "@connectrpc/connect-node";
import { cutMarker } from "../../src/doors/grpc/trailer-budget.ts";
import { BadRequestSchema, ErrorInfoSchema } from "../../src/gen/google/rpc/error_details_pb.js";
import { TermsService } from "../../src/gen/lading/iam/v2/terms_pb.js";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

/** Longest acceptable time to a whole answer: an answer, not a hang (the fuzz suites' limit). */
const answerMs = 5000;

const encodings: Record<string, Compression[]> = {
  identity: [],
  gzip: [compressionGzip],
  br: [compressionBrotli],
};

/**
 * Errors of three sizes, from AcceptTerms: none is over the library's 1 KiB compression
 * threshold, one is just over it, one is far over it (and over 64 KiB on every door). Sizes are
 * those of the Connect error body (REST's is about two thirds of it), checked below.
 */
const sizes = [
  { name: "~100 B", ids: 0, connectBytes: [100, 400], code: Code.Unauthenticated },
  { name: "~1 KiB", ids: 4, connectBytes: [1024, 2048], code: Code.InvalidArgument },
  { name: "~64 KiB", ids: 400, connectBytes: [96 * 1024, 128 * 1024], code: Code.InvalidArgument },
] as const;
type Size = (typeof sizes)[number];

/** The request of `size`: without credentials, or with `ids` invalid document ids. */
const requestOf = (server: TestServer, size: Size) => ({
  group: server.org.groupUid,
  documentIds: Array.from({ length: size.ids }, (_, i) => `NOT-AN-ID-${i}`),
});
const tokenOf = (server: TestServer, size: Size) => (size.ids === 0 ? undefined : server.org.token);
/** One violation per id, and one for holding more than 50. */
const violationsOf = (size: Size) => size.ids + (size.ids > 50 ? 1 : 0);

/** The error a transport's client reads for `size`, and how long the call took. */
async function callOver(
  transport: Transport,
  server: TestServer,
  size: Size,
): Promise<{ error: ConnectError; ms: number }> {
  const client = createClient(TermsService, transport);
  const started = Date.now();
  const token = tokenOf(server, size);
  try {
    await client.acceptTerms(requestOf(server, size), {
      signal: AbortSignal.timeout(answerMs),
      headers: token ? { authorization: `Bearer ${token}` } : {},
    });
  } catch (error) {
    return { error: ConnectError.from(error), ms: Date.now() - started };
  }
  throw new Error("AcceptTerms succeeded");
}

/** Asserts that `error` is the whole error of `size`, with its typed details. */
function assertWhole(error: ConnectError, size: Size) {
  assert.equal(error.code, size.code, `${error.code}: ${error.rawMessage}`);
  assert.ok(!error.rawMessage.endsWith(cutMarker), "the whole message");
  assert.equal(error.findDetails(ErrorInfoSchema).length, 1);
  const violations = error.findDetails(BadRequestSchema)[0]?.fieldViolations ?? [];
  assert.equal(violations.length, violationsOf(size));
}

/**
 * Finding 2: an error of any size is answered on every transport and with every encoding the
 * client accepts. A Connect error of 1 KiB or more, which the RPC library compresses when the
 * client accepts gzip or brotli (as fetch does), was never answered: the door's error rewrite
 * could not read the compressed body, threw, and the adapter left the request open. A gRPC
 * error whose trailers passed the client's header-list limit was reset (FRAME_SIZE_ERROR).
 */
for (const store of storeKinds) {
  describe(`errors of every size are answered [${store}]`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(store);
    });
    after(() => server?.close());

    for (const size of sizes) {
      for (const [encoding, accept] of Object.entries(encodings)) {
        it(`Connect, ${size.name}, ${encoding}: fetch reads the whole error`, async () => {
          const started = Date.now();
          const token = tokenOf(server, size);
          const res = await fetch(`${server.apiUrl}/lading.iam.v2.TermsService/AcceptTerms`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "connect-protocol-version": "1",
              "accept-encoding": encoding,
              ...(token ? { authorization: `Bearer ${token}` } : {}),
            },
            body: JSON.stringify(requestOf(server, size)),
            signal: AbortSignal.timeout(answerMs),
          });
          const text = await res.text();
          assert.ok(Date.now() - started < answerMs);
          const [min, max] = size.connectBytes;
          assert.ok(text.length >= min && text.length <= max, `${text.length} bytes`);
          const compressed = encoding !== "identity" && text.length >= 1024;
          assert.equal(res.headers.get("content-encoding"), compressed ? encoding : null);
          const body = JSON.parse(text);
          assert.equal(
            body.code,
            size.code === Code.Unauthenticated ? "unauthenticated" : "invalid_argument",
          );
          assert.equal(body.details.length, size.ids === 0 ? 1 : 2);
        });

        for (const [name, transport] of [
          [
            "Connect JSON over HTTP/1.1",
            () =>
              createConnectTransport({
                baseUrl: server.apiUrl,
                httpVersion: "1.1",
                acceptCompression: accept,
              }),
          ],
          [
            "Connect binary over HTTP/2",
            () =>
              createConnectTransport({
                baseUrl: server.apiUrl,
                httpVersion: "2",
                useBinaryFormat: true,
                acceptCompression: accept,
              }),
          ],
          [
            "gRPC-Web over HTTP/1.1",
            () =>
              createGrpcWebTransport({
                baseUrl: server.apiUrl,
                httpVersion: "1.1",
                acceptCompression: accept,
              }),
          ],
        ] as const) {
          it(`${name}, ${size.name}, ${encoding}: the whole error`, async () => {
            const { error, ms } = await callOver(transport(), server, size);
            assert.ok(ms < answerMs, `${ms} ms`);
            assertWhole(error, size);
          });
        }

        it(`gRPC over HTTP/2, ${size.name}, ${encoding}: the error, within 8 KiB of trailers`, async () => {
          // An 8 KiB header-list limit, the default of gRPC's C++ and Java clients.
          const transport = createGrpcTransport({
            baseUrl: server.apiUrl,
            acceptCompression: accept,
            nodeOptions: { settings: { maxHeaderListSize: 8192 } },
          });
          const { error, ms } = await callOver(transport, server, size);
          assert.ok(ms < answerMs, `${ms} ms`);
          if (size.ids < 100) {
            assertWhole(error, size);
            return;
          }
          assert.equal(error.code, size.code, error.rawMessage);
          assert.ok(error.rawMessage.startsWith("Invalid argument: document_ids"));
          assert.ok(error.rawMessage.endsWith(cutMarker), "says it was cut");
          assert.equal(error.findDetails(ErrorInfoSchema)[0]?.reason, "INVALID_ARGUMENT");
          const kept = error.findDetails(BadRequestSchema)[0]?.fieldViolations ?? [];
          assert.ok(kept.length > 10 && kept.length < violationsOf(size), `${kept.length} kept`);
          assert.equal(kept[0].field, "document_ids");
          assert.equal(kept[1].field, "document_ids[0]", "the first ones, in order");
        });

        it(`REST, ${size.name}, ${encoding}: the whole google.rpc.Status`, async () => {
          const started = Date.now();
          const token = tokenOf(server, size);
          const res = await fetch(`${server.apiUrl}/iam/v2/terms/${server.org.groupUid}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              "accept-encoding": encoding,
              ...(token ? { authorization: `Bearer ${token}` } : {}),
            },
            body: JSON.stringify({ documentIds: requestOf(server, size).documentIds }),
            signal: AbortSignal.timeout(answerMs),
          });
          const body = (await res.json()) as {
            code: number;
            details: { "@type": string; fieldViolations?: unknown[] }[];
          };
          assert.ok(Date.now() - started < answerMs);
          assert.equal(body.code, size.code);
          const bad = body.details.find((d) => d["@type"].endsWith("BadRequest"));
          assert.equal(bad?.fieldViolations?.length ?? 0, violationsOf(size));
        });
      }
    }
  });
}
