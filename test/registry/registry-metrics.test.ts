import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { createLogger } from "../../src/server/index.ts";
import { ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import { registryPairs, startRegistryServer } from "../support/registry-server.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

/** The value of the sample `name{labels}` in a Prometheus text page, or undefined. */
function sample(page: string, name: string, labels = ""): number | undefined {
  const line = page
    .split("\n")
    .find((l) => l.startsWith(labels ? `${name}{${labels}}` : `${name} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

for (const pair of registryPairs) {
  describe(`registry /metrics [${pair.store}, ${pair.blobs}]`, () => {
    let registry: Awaited<ReturnType<typeof startRegistryServer>>;
    let page = "";
    let layerBytes = 0;
    before(async () => {
      registry = await startRegistryServer(pair);
      const client = ociClient(registry.registryUrl, registry.ownerToken);
      const image = buildImage(randomBytes(200_000).toString("base64"));
      layerBytes = Math.max(...[...image.blobs.values()].map((b) => b.length));
      assert.ok(layerBytes > 200_000);
      const digest = await client.pushImage("acme/app", "v1", image);
      for (const blob of image.blobs.keys()) {
        const res = await client.fetch(`/v2/acme/app/blobs/${blob}`);
        assert.equal(res.status, 200);
        await res.arrayBuffer();
      }
      const manifest = await client.fetch(`/v2/acme/app/manifests/${digest}`);
      await manifest.arrayBuffer();
      const res = await fetch(`${registry.registryUrl}/metrics`);
      assert.equal(res.status, 200);
      assert.match(res.headers.get("content-type") ?? "", /text\/plain/);
      page = await res.text();
    });
    after(() => registry?.close());

    it("counts requests by route kind, method and status, never by repository", () => {
      assert.ok(
        (sample(
          page,
          "lading_registry_requests_total",
          'route="manifest",method="GET",code="200"',
        ) ?? 0) >= 1,
      );
      assert.ok(
        (sample(page, "lading_registry_requests_total", 'route="blob",method="GET",code="200"') ??
          0) >= 2,
      );
      assert.ok(
        (sample(
          page,
          "lading_registry_requests_total",
          'route="uploads",method="POST",code="201"',
        ) ?? 0) >= 2,
      );
      assert.doesNotMatch(page, /acme/);
      assert.match(
        page,
        /lading_registry_request_duration_seconds_bucket\{le="0.005",route="manifest"\}/,
      );
    });

    it("serves /metrics to GET only", async () => {
      const res = await fetch(`${registry.registryUrl}/metrics`, { method: "POST", body: "x" });
      assert.ok(res.status === 404 || res.status === 405, `POST answered ${res.status}`);
      await res.arrayBuffer();
    });

    it("counts body bytes in and out", () => {
      assert.ok((sample(page, "lading_registry_bytes_received_total") ?? 0) >= layerBytes);
      assert.ok((sample(page, "lading_registry_bytes_sent_total") ?? 0) >= layerBytes);
    });

    it("reports upload sessions, GC and the database pool", () => {
      assert.equal(sample(page, "lading_registry_upload_sessions"), 0);
      assert.match(page, /^# TYPE nodejs_gc_duration_seconds histogram/m);
      const pool = sample(page, "lading_db_pool_connections", 'state="total"');
      if (pair.store === "postgres") assert.ok((pool ?? 0) >= 1);
      else assert.equal(pool, undefined);
    });
  });
}

describe("registry access log", () => {
  let server: TestServer | undefined;
  const lines: Record<string, unknown>[] = [];
  before(async () => {
    const log = createLogger({
      level: "info",
      format: "json",
      destination: { write: (line: string) => lines.push(JSON.parse(line)) },
    });
    server = await startTestServer("sqlite", "acme", {}, log);
  });
  after(() => server?.close());

  it("names the caller on every registry line, with an ISO timestamp", async () => {
    if (!server) throw new Error("no server");
    const token = await server.token(server.org.identityUid, {
      audience: server.lading.registryAudience,
    });
    const res = await fetch(`${server.lading.registryUrl}/v2/acme/none/tags/list`, {
      headers: { authorization: `Bearer ${token}` },
    });
    await res.arrayBuffer();
    await fetch(`${server.lading.registryUrl}/v2/`).then((r) => r.arrayBuffer());
    const requests = lines.filter((l) => l.door === "oci");
    const tags = requests.find((l) => String(l.path).endsWith("/tags/list"));
    assert.equal(tags?.caller, server.org.identityUid);
    assert.match(String(tags?.time), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const anonymous = requests.find((l) => l.path === "/v2/");
    assert.equal(anonymous?.status, 401);
    assert.equal(anonymous?.caller, undefined);
  });

  it("says it stopped", async () => {
    await server?.close();
    server = undefined;
    assert.ok(lines.some((l) => l.msg === "lading stopped"));
  });
});
