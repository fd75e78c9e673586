import assert from "node:assert/strict";
import { rm } from "node:fs/promises";
import { request } from "node:https";
import { after, before, describe, it } from "node:test";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import { GroupsService } from "../../src/gen/lading/iam/v2/groups_pb.js";
import { startTestServer, type TestServer } from "../support/server.ts";
import { makeCertificate, type TestCertificate } from "../support/tls.ts";

/** `lading serve --tls-cert --tls-key`: REST over HTTPS, gRPC over h2 and Connect over HTTP/1.1, by ALPN. */
describe("the API over TLS", () => {
  let server: TestServer;
  let certificate: TestCertificate;
  before(async () => {
    certificate = await makeCertificate();
    server = await startTestServer("sqlite", "acme", {
      tlsCert: certificate.certFile,
      tlsKey: certificate.keyFile,
    });
  });
  after(async () => {
    await server.close();
    await rm(certificate.dir, { recursive: true, force: true });
  });

  it("names an https API URL and issues tokens for it", () => {
    assert.match(server.apiUrl, /^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it("serves REST over HTTPS", async () => {
    const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(`${server.apiUrl}/iam/v2/groups`, {
        ca: certificate.cert,
        headers: { authorization: `Bearer ${server.org.token}` },
      });
      req.on("error", reject);
      req.on("response", (res) => {
        let body = "";
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.end();
    });
    assert.equal(answer.status, 200);
    assert.deepEqual(
      (JSON.parse(answer.body) as { groups: { name: string }[] }).groups.map((g) => g.name),
      ["acme"],
    );
  });

  it("serves gRPC over h2 and Connect over HTTP/1.1 on the same TLS port", async () => {
    const headers = { authorization: `Bearer ${server.org.token}` };
    for (const transport of [
      createGrpcTransport({ baseUrl: server.apiUrl, nodeOptions: { ca: certificate.cert } }),
      createConnectTransport({
        baseUrl: server.apiUrl,
        httpVersion: "1.1",
        nodeOptions: { ca: certificate.cert },
      }),
    ]) {
      const page = await createClient(GroupsService, transport).listGroups({}, { headers });
      assert.deepEqual(
        page.groups.map((g) => g.name),
        ["acme"],
      );
    }
  });
});
