import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { startTestServer, type TestServer } from "../support/server.ts";

/** Probes answered on the registry listener too, exactly as on the API listener. */
describe("Registry listener probes", () => {
  let server: TestServer;
  before(async () => {
    server = await startTestServer("sqlite");
  });
  after(() => server?.close());

  const answer = async (base: string, path: string) => {
    const res = await fetch(`${base}${path}`);
    return {
      status: res.status,
      type: res.headers.get("content-type"),
      body: await res.text(),
    };
  };

  it("answers /healthz and /readyz without credentials, as the API listener does", async () => {
    for (const path of ["/healthz", "/readyz"]) {
      const registry = await answer(server.lading.registryUrl, path);
      assert.deepEqual(registry, await answer(server.apiUrl, path), path);
      assert.equal(registry.status, 200, path);
    }
    assert.deepEqual(JSON.parse((await answer(server.lading.registryUrl, "/readyz")).body), {
      status: "ready",
    });
  });

  it("counts probes in the registry's metrics as their own route kind", async () => {
    await fetch(`${server.lading.registryUrl}/healthz`).then((r) => r.arrayBuffer());
    const text = await (await fetch(`${server.lading.registryUrl}/metrics`)).text();
    assert.match(text, /lading_registry_requests_total\{route="probe",method="GET",code="200"\}/);
  });
});
