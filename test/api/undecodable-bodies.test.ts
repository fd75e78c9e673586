import assert from "node:assert/strict";
import http2 from "node:http2";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

const listGroups = "/lading.iam.v2.GroupsService/ListGroups";
/** Bodies that are no ListGroupsRequest: a lone 0xff, and field 1's varint cut short. */
const bodies: [string, Buffer][] = [
  ["0xff", Buffer.from([0xff])],
  ["a truncated varint", Buffer.from([0x08, 0x80])],
];

/** A gRPC length-prefixed message. */
function frame(payload: Buffer, flags = 0): Buffer {
  const header = Buffer.alloc(5);
  header[0] = flags;
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** The status and message of a gRPC-Web answer, read from its trailer frame. */
function webTrailer(body: Buffer): { status: string; message: string } {
  assert.equal(body[0], 0x80, "a trailer frame");
  const text = body.subarray(5, 5 + body.readUInt32BE(1)).toString("utf8");
  const field = (name: string) => new RegExp(`^${name}: (.*)$`, "mi").exec(text)?.[1] ?? "";
  return { status: field("grpc-status"), message: decodeURIComponent(field("grpc-message")) };
}

/** A body that does not decode is the client's error on every protocol (finding 4). */
for (const store of storeKinds) {
  describe(`undecodable request bodies [${store}]`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(store);
    });
    after(() => server.close());

    const post = (path: string, contentType: string, body: Buffer | string) =>
      fetch(`${server.apiUrl}${path}`, {
        method: "POST",
        headers: { "content-type": contentType, authorization: `Bearer ${server.org.token}` },
        body,
      });

    /** One HTTP/2 exchange: the body and trailers of the answer. */
    async function h2(path: string, body: Buffer, headers: Record<string, string>) {
      const session = http2.connect(server.apiUrl);
      try {
        const stream = session.request({
          ":method": "POST",
          ":path": path,
          te: "trailers",
          authorization: `Bearer ${server.org.token}`,
          ...headers,
        });
        let trailers: http2.IncomingHttpHeaders = {};
        const chunks: Buffer[] = [];
        stream.on("trailers", (t) => {
          trailers = t;
        });
        stream.on("data", (chunk: Buffer) => chunks.push(chunk));
        stream.end(body);
        await new Promise((resolve, reject) => stream.on("close", resolve).on("error", reject));
        return { body: Buffer.concat(chunks), trailers };
      } finally {
        session.close();
      }
    }

    /** Native gRPC: the status and message from the trailers. */
    async function grpc(path: string, body: Buffer, headers: Record<string, string> = {}) {
      const { trailers } = await h2(path, body, { "content-type": "application/grpc", ...headers });
      return {
        status: String(trailers["grpc-status"]),
        message: decodeURIComponent(String(trailers["grpc-message"])),
      };
    }

    const clear = (message: string) => {
      assert.match(message, /^Invalid argument: body: must be a (binary|JSON) \S+Request message/);
      assert.doesNotMatch(message, /\n\s+at /);
    };

    for (const [name, body] of bodies) {
      it(`answers Connect binary with ${name}: 400 invalid_argument`, async () => {
        const res = await post(listGroups, "application/proto", body);
        const error = (await res.json()) as { code: string; message: string };
        assert.equal(res.status, 400, JSON.stringify(error));
        assert.equal(error.code, "invalid_argument");
        clear(error.message);
      });

      it(`answers gRPC-Web with ${name}: grpc-status 3`, async () => {
        const res = await post(listGroups, "application/grpc-web+proto", frame(body));
        assert.equal(res.status, 200);
        const { status, message } = webTrailer(Buffer.from(await res.arrayBuffer()));
        assert.equal(status, "3", message);
        clear(message);
      });

      it(`answers native gRPC with ${name}: grpc-status 3`, async () => {
        const { status, message } = await grpc(listGroups, frame(body));
        assert.equal(status, "3", message);
        clear(message);
      });
    }

    it("answers a compressed frame without an encoding, and a bad gzip frame, with grpc-status 3", async () => {
      const unflagged = await grpc(listGroups, frame(Buffer.from([0x08, 0x01]), 1));
      assert.equal(unflagged.status, "3", unflagged.message);
      const gzip = await grpc(listGroups, frame(Buffer.from([0xff, 0xff]), 1), {
        "grpc-encoding": "gzip",
      });
      assert.equal(gzip.status, "3", gzip.message);
    });

    it("answers a streaming method (server reflection) over gRPC and Connect the same way", async () => {
      const reflection = "/grpc.reflection.v1.ServerReflection/ServerReflectionInfo";
      const { status, message } = await grpc(reflection, frame(Buffer.from([0xff])));
      assert.equal(status, "3", message);
      const connect = await h2(reflection, frame(Buffer.from([0xff])), {
        "content-type": "application/connect+proto",
        "connect-protocol-version": "1",
      });
      assert.equal(connect.body[0], 0x02, "an end-of-stream frame");
      const end = JSON.parse(connect.body.subarray(5).toString("utf8"));
      assert.equal(end.error.code, "invalid_argument");
    });

    it("answers JSON whose string holds a lone surrogate over Connect, gRPC-Web and gRPC", async () => {
      // A string where a number goes: the error echoes it. A lone surrogate in a gRPC status
      // cannot be percent-encoded, which cut the answer off; it is read as U+FFFD, like
      // invalid UTF-8 in a binary message.
      const json = Buffer.from('{"pageSize": "\\ud800"}');
      const connect = await post(listGroups, "application/json", json);
      const error = (await connect.json()) as { code: string; message: string };
      assert.equal(connect.status, 400);
      assert.equal(error.code, "invalid_argument");
      clear(error.message);
      assert.match(error.message, /\ufffd/);
      const web = await post(listGroups, "application/grpc-web+json", frame(json));
      const trailer = webTrailer(Buffer.from(await web.arrayBuffer()));
      assert.equal(trailer.status, "3", trailer.message);
      clear(trailer.message);
      const grpcJson = await grpc(listGroups, frame(json), {
        "content-type": "application/grpc+json",
      });
      assert.equal(grpcJson.status, "3", grpcJson.message);
      clear(grpcJson.message);
    });

    it("answers invalid JSON over Connect, gRPC-Web and REST with invalid_argument", async () => {
      const connect = await post(listGroups, "application/json", "{nope");
      assert.equal(connect.status, 400);
      const connectError = (await connect.json()) as { code: string; message: string };
      assert.equal(connectError.code, "invalid_argument");
      clear(connectError.message);
      const web = await post(listGroups, "application/grpc-web+json", frame(Buffer.from("{nope")));
      assert.equal(webTrailer(Buffer.from(await web.arrayBuffer())).status, "3");
      const groups = `/iam/v2/groups/${server.org.groupUid}`;
      for (const body of ["{nope", JSON.stringify({ name: 5 }), "[1]"]) {
        const rest = await post(groups, "application/json", body);
        assert.equal(rest.status, 400, body);
        assert.equal(((await rest.json()) as { code: number }).code, 3, body);
      }
    });
  });
}
