import assert from "node:assert/strict";
import http from "node:http";
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { type DescMessage, type MessageShape, toJson } from "@bufbuild/protobuf";
import type { Principal } from "../../auth/index.ts";
import { failedPrecondition, notFound, unauthenticated } from "../../errors/index.ts";
import { GroupsService } from "../../gen/lading/iam/v2/groups_pb.js";
import { IdentitiesService } from "../../gen/lading/iam/v2/identities_pb.js";
import { PingService } from "../../gen/lading/ping/v2/ping_pb.js";
import { bindService, type Call } from "../../rpc/index.ts";
import { createRestDoor } from "./rest-door.ts";

const root = "0123456789abcdef0123456789abcdef01234567";
const child = `${root}/0123456789abcdef`;
const silent = { error() {}, info() {}, child: () => silent } as never;

/** The request and call a stub handler saw, echoed back in `description`. */
function echo<D extends DescMessage>(schema: D, request: MessageShape<D>, call: Call): string {
  return JSON.stringify({
    request: toJson(schema, request),
    bodyPaths: call.bodyPaths,
    mask: (request as { updateMask?: { paths: string[] } }).updateMask?.paths,
    identity: call.principal?.identityUid,
  });
}

const services = [
  bindService(
    PingService,
    { ping: async () => ({ response: "pong" }) },
    new Set(["lading.ping.v2.PingService/Ping"]),
  ),
  bindService(IdentitiesService, {
    listIdentities: async (req, call) => ({
      identities: [{ description: echo(IdentitiesService.method.listIdentities.input, req, call) }],
      totalCount: 7n,
    }),
    getIdentity: async (req, call) => {
      if (req.uid === "missing") throw notFound("iam", "identity", "missing");
      if (req.uid === "boom") throw new Error("database on fire");
      return {
        uid: req.uid,
        description: echo(IdentitiesService.method.getIdentity.input, req, call),
      };
    },
    createIdentity: async (req, call) => ({
      description: echo(IdentitiesService.method.createIdentity.input, req, call),
    }),
    updateIdentity: async (req, call) => ({
      description: echo(IdentitiesService.method.updateIdentity.input, req, call),
    }),
    deleteIdentity: async () => {
      throw failedPrecondition("iam", "identity has role bindings", [
        { type: "RESOURCE_NOT_EMPTY", description: "delete its role bindings first" },
      ]);
    },
  }),
  bindService(GroupsService, {
    listGroups: async () => ({}),
    getGroup: async (req) => ({ uid: req.uid }),
    createGroup: async (req) => ({ uid: req.parent }),
    updateGroup: async (req, call) => ({
      description: echo(GroupsService.method.updateGroup.input, req, call),
    }),
    deleteGroup: async () => ({}),
  }),
];

async function authenticate(authorization: string | undefined): Promise<Principal> {
  if (authorization !== "Bearer good")
    throw unauthenticated("INVALID_TOKEN", "a valid bearer token is required");
  return {
    identityUid: root,
    claims: {},
    grants: async () => ({ can: () => true, scopes: () => [] }),
  };
}

describe("REST door", () => {
  let server: http.Server;
  let base = "";
  before(async () => {
    const door = createRestDoor({ services, authenticate });
    server = http.createServer(async (req, res) => {
      const ctx = { requestId: "req-1", log: silent, signal: new AbortController().signal };
      if (!(await door.handle(req, res, ctx))) {
        res.statusCode = 418;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const send = (method: string, path: string, body?: string, token = "good") =>
    fetch(`${base}${path}`, { method, body, headers: { authorization: `Bearer ${token}` } });
  const seen = async (res: Response) => {
    assert.equal(res.status, 200, await res.clone().text());
    const json = (await res.json()) as {
      description?: string;
      identities?: { description: string }[];
    };
    return JSON.parse(json.description ?? json.identities?.[0].description ?? "{}");
  };
  const violations = async (res: Response) => {
    assert.equal(res.status, 400);
    const body = (await res.json()) as {
      code: number;
      details: { "@type": string; fieldViolations?: { field: string }[] }[];
    };
    assert.equal(body.code, 3);
    return body.details
      .find((d) => d["@type"].endsWith("BadRequest"))
      ?.fieldViolations?.map((v) => v.field);
  };

  it("serves an anonymous method without credentials and answers proto3 JSON", async () => {
    const res = await fetch(`${base}/ping/v2/ping`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get("content-type"), "application/json");
    assert.deepEqual(await res.json(), { response: "pong" });
  });

  it("binds {uid=**} across slashes and emits int64 as a string with defaults", async () => {
    const res = await send("GET", `/iam/v2/identities/${child}`);
    assert.deepEqual((await seen(res)).request, { uid: child });
    const list = (await (await send("GET", "/iam/v2/identities")).json()) as Record<
      string,
      unknown
    >;
    assert.equal(list.totalCount, "7");
    assert.equal(list.nextPageToken, "");
    assert.equal(list.skipped, 0);
  });

  it("percent-decodes each path segment", async () => {
    const res = await send("GET", "/iam/v2/identities/a%20b/c%2Fd");
    assert.equal((await seen(res)).request.uid, "a b/c/d");
  });

  it("binds {group.uid=**} into the nested message and the body around it", async () => {
    const res = await send(
      "PATCH",
      `/iam/v2/groups/${child}`,
      JSON.stringify({ uid: "ignored", name: "n" }),
    );
    assert.deepEqual((await seen(res)).request, { group: { uid: child, name: "n" } });
  });

  it("takes query parameters in snake_case and lowerCamel, dotted for nested fields", async () => {
    const snake = await seen(
      await send(
        "GET",
        `/iam/v2/identities?uidp.descendants_of=${root}&page_size=5&order_by=name%20desc`,
      ),
    );
    assert.deepEqual(snake.request, {
      uidp: { descendantsOf: root },
      pageSize: 5,
      orderBy: "name desc",
    });
    const camel = await seen(
      await send("GET", `/iam/v2/identities?uidp.descendantsOf=${root}&pageSize=5&skip=2`),
    );
    assert.deepEqual(camel.request, { uidp: { descendantsOf: root }, pageSize: 5, skip: 2 });
  });

  for (const [query, field] of [
    ["page_size=abc", "page_size"],
    ["page_size=99999999999", "page_size"],
    ["skip=1.5", "skip"],
    ["skip=0x10", "skip"],
    ["skip=1e3", "skip"],
    ["skip=", "skip"],
    ["colour=red", "colour"],
    ["uidp.nope=1", "uidp.nope"],
    ["uidp=x", "uidp"],
    ["pageSize=1&pageSize=2", "pageSize"],
  ]) {
    it(`refuses ${query} with a violation on ${field}`, async () => {
      assert.deepEqual(await violations(await send("GET", `/iam/v2/identities?${query}`)), [field]);
    });
  }

  it("collects one violation per failing parameter", async () => {
    const res = await send("GET", "/iam/v2/identities?page_size=x&skip=y&name=ok");
    assert.deepEqual(await violations(res), ["page_size", "skip"]);
  });

  it("refuses a query parameter the path already binds", async () => {
    assert.deepEqual(await violations(await send("GET", `/iam/v2/identities/${root}?uid=x`)), [
      "uid",
    ]);
  });

  for (const [title, body, fields] of [
    ["malformed JSON", "{name:", ["identity"]],
    ["a JSON array", "[1,2]", ["identity"]],
    ["a wrong type", JSON.stringify({ name: 5 }), ["name"]],
    ["an unknown field", JSON.stringify({ name: "x", colour: "red" }), ["colour"]],
    [
      "a nested unknown field",
      JSON.stringify({ claimMatch: { issuer: "i", sub: "s" } }),
      ["claimMatch.sub"],
    ],
    [
      "several bad fields",
      JSON.stringify({ name: 1, description: [], x: 1 }),
      ["name", "description", "x"],
    ],
  ] as const) {
    it(`refuses a body with ${title}`, async () => {
      assert.deepEqual(
        await violations(await send("POST", `/iam/v2/identities/${root}`, body)),
        fields,
      );
    });
  }

  it("treats an empty body as an empty message", async () => {
    const res = await send("POST", `/iam/v2/identities/${root}`, "");
    assert.deepEqual((await seen(res)).request, { parent: root, identity: {} });
  });

  it("infers the update paths of a PATCH without a mask from the body", async () => {
    const body = JSON.stringify({ description: "d", claimMatch: { issuer: "https://x" } });
    const result = await seen(await send("PATCH", `/iam/v2/identities/${child}`, body));
    assert.deepEqual(result.bodyPaths, ["description", "claim_match.issuer"]);
    assert.equal(result.request.updateMask, undefined);
    assert.equal(result.request.identity.uid, child);
  });

  it("passes a given update mask through in snake_case", async () => {
    const res = await send(
      "PATCH",
      `/iam/v2/identities/${child}?updateMask=claimMatch.subject,description`,
      "{}",
    );
    assert.deepEqual((await seen(res)).mask, ["claim_match.subject", "description"]);
    const snake = await seen(
      await send(
        "PATCH",
        `/iam/v2/identities/${child}?update_mask=claim_match.issuer&update_mask=name`,
        "{}",
      ),
    );
    assert.deepEqual(snake.mask, ["claim_match.issuer", "name"]);
  });

  it("refuses a body over 1 MiB with 413 and code 3", async () => {
    const res = await send(
      "POST",
      `/iam/v2/identities/${root}`,
      JSON.stringify({ description: "d".repeat(2 * 1024 * 1024) }),
    );
    assert.equal(res.status, 413);
    assert.equal(((await res.json()) as { code: number }).code, 3);
  });

  it("stops reading a chunked body once it passes 1 MiB", async () => {
    const { port } = server.address() as AddressInfo;
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request({
        port,
        host: "127.0.0.1",
        method: "POST",
        path: `/iam/v2/identities/${root}`,
        headers: { authorization: "Bearer good" },
      });
      req.on("response", (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on("error", reject);
      const chunk = Buffer.alloc(64 * 1024, "a");
      for (let i = 0; i < 24; i++) req.write(chunk);
    });
    assert.equal(status, 413);
  });

  it("answers 413 over HTTP/2 while the client is still sending", async () => {
    const door = createRestDoor({ services, authenticate });
    const h2 = http2.createServer((req, res) => {
      void door.handle(req, res, {
        requestId: "h2",
        log: silent,
        signal: new AbortController().signal,
      });
    });
    await new Promise<void>((resolve) => h2.listen(0, "127.0.0.1", resolve));
    const session = http2.connect(`http://127.0.0.1:${(h2.address() as AddressInfo).port}`);
    const stream = session.request({
      ":method": "POST",
      ":path": `/iam/v2/identities/${root}`,
      authorization: "Bearer good",
    });
    stream.on("error", () => {});
    const chunk = Buffer.alloc(64 * 1024, "a");
    for (let i = 0; i < 24; i++) stream.write(chunk);
    const [status, body] = await new Promise<[number, string]>((resolve) => {
      let status = 0;
      let body = "";
      stream.on("response", (headers) => (status = Number(headers[":status"])));
      stream.on("data", (c) => (body += c));
      stream.on("end", () => resolve([status, body]));
    });
    assert.equal(status, 413);
    assert.equal((JSON.parse(body) as { code: number }).code, 3);
    session.destroy();
    await new Promise<void>((resolve) => h2.close(() => resolve()));
  });

  it("refuses a path segment that is not valid percent-encoding", async () => {
    assert.deepEqual(await violations(await send("GET", "/iam/v2/identities/%E0%A4%A")), ["uid"]);
  });

  it("authenticates before reading the body", async () => {
    const res = await send("POST", `/iam/v2/identities/${root}`, "{not json", "bad");
    assert.equal(res.status, 401);
    assert.equal(res.headers.get("www-authenticate"), "Bearer");
    const body = (await res.json()) as { code: number; details: { reason?: string }[] };
    assert.equal(body.code, 16);
    assert.equal(body.details[0].reason, "INVALID_TOKEN");
  });

  it("renders errors as google.rpc.Status with typed details in order", async () => {
    const missing = await send("GET", "/iam/v2/identities/missing");
    assert.equal(missing.status, 404);
    const status = (await missing.json()) as {
      code: number;
      message: string;
      details: Record<string, unknown>[];
    };
    assert.equal(status.code, 5);
    assert.deepEqual(
      status.details.map((d) => d["@type"]),
      ["type.googleapis.com/google.rpc.ErrorInfo", "type.googleapis.com/google.rpc.ResourceInfo"],
    );
    assert.equal(status.details[1].resourceName, "missing");
    const blocked = await send("DELETE", `/iam/v2/identities/${child}`);
    assert.equal(blocked.status, 400);
    const failed = (await blocked.json()) as {
      code: number;
      message: string;
      details: Record<string, unknown>[];
    };
    assert.equal(failed.code, 9);
    assert.match(failed.message, /^Precondition failed: /);
    assert.deepEqual(failed.details[0], {
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "FAILED_PRECONDITION",
      domain: "iam.lading.dev",
    });
    assert.deepEqual(failed.details[1], {
      "@type": "type.googleapis.com/google.rpc.PreconditionFailure",
      violations: [{ type: "RESOURCE_NOT_EMPTY", description: "delete its role bindings first" }],
    });
  });

  it("answers INTERNAL with the request id for any other error", async () => {
    const res = await send("GET", "/iam/v2/identities/boom");
    assert.equal(res.status, 500);
    const body = (await res.json()) as { code: number; message: string };
    assert.equal(body.code, 13);
    assert.match(body.message, /req-1/);
    assert.doesNotMatch(body.message, /fire/);
  });

  it("answers 405 with Allow for a path served under other methods", async () => {
    const res = await send("PUT", `/iam/v2/identities/${root}`, "{}");
    assert.equal(res.status, 405);
    assert.equal(res.headers.get("allow"), "GET, POST, PATCH, DELETE");
    assert.equal(((await res.json()) as { code: number }).code, 12);
  });

  it("leaves paths no template matches to the caller", async () => {
    assert.equal((await send("GET", "/iam/v2/nothing")).status, 418);
    assert.equal((await send("GET", "/elsewhere")).status, 418);
  });
});
