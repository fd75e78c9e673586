import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { promisify } from "node:util";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { GroupsService } from "../../src/gen/lading/iam/v2/groups_pb.js";
import { startTestServer, type TestServer } from "../support/server.ts";
import { storeKinds } from "../support/stores.ts";

const run = promisify(execFile);

for (const store of storeKinds) {
  describe(`gRPC reflection and the other RPC protocols [${store}]`, () => {
    let server: TestServer;
    before(async () => {
      server = await startTestServer(store);
    });
    after(() => server.close());

    it("lists every service through gRPC server reflection (buf curl)", async () => {
      const { stdout } = await run("buf", [
        "curl",
        "--http2-prior-knowledge",
        "--protocol",
        "grpc",
        "--list-services",
        server.apiUrl,
      ]);
      const services = stdout.trim().split("\n").sort();
      for (const name of [
        "lading.iam.v2.GroupsService",
        "lading.iam.v2.IdentitiesService",
        "lading.iam.v2.RoleBindingsService",
        "lading.iam.v2.RolesService",
        "lading.ping.v2.PingService",
      ]) {
        assert.ok(services.includes(name), `${name} in ${stdout}`);
      }
    });

    it("calls a method through reflection with buf curl, with and without a token", async () => {
      const url = `${server.apiUrl}/lading.iam.v2.GroupsService/ListGroups`;
      const base = [
        "curl",
        "--http2-prior-knowledge",
        "--protocol",
        "grpc",
        "--data",
        '{"orderBy": "name"}',
      ];
      const { stdout } = await run("buf", [
        ...base,
        "-H",
        `authorization: Bearer ${server.org.token}`,
        url,
      ]);
      const answer = JSON.parse(stdout) as { groups: { name: string }[]; totalCount: string };
      assert.deepEqual(
        answer.groups.map((g) => g.name),
        ["acme"],
      );
      assert.equal(answer.totalCount, "1");
      const refused = await run("buf", [...base, url]).then(
        () => "succeeded",
        (error: { stderr: string }) => error.stderr,
      );
      assert.match(refused, /unauthenticated/i);
    });

    it("serves Connect over HTTP/1.1 and gRPC-Web on the same port", async () => {
      const auth = { authorization: `Bearer ${server.org.token}` };
      for (const transport of [
        createConnectTransport({ baseUrl: server.apiUrl, httpVersion: "1.1" }),
        createGrpcWebTransport({ baseUrl: server.apiUrl, httpVersion: "1.1" }),
      ]) {
        const client = createClient(GroupsService, transport);
        const page = await client.listGroups({}, { headers: auth });
        assert.deepEqual(
          page.groups.map((g) => g.name),
          ["acme"],
        );
        assert.equal(page.totalCount, 1n);
      }
    });
  });
}
