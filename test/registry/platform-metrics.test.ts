import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { restCall } from "../support/api-client.ts";
import { type EventSink, startEventSink } from "../support/event-sink.ts";
import { ok } from "../support/matrix.ts";
import { ociClient } from "../support/oci-client.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { imageOf, packageFiles, waitFor } from "../support/scan-images.ts";

/** The value of the sample `name{labels}` in a Prometheus text page, or undefined. */
function sample(page: string, name: string, labels = ""): number | undefined {
  const line = page
    .split("\n")
    .find((l) => l.startsWith(labels ? `${name}{${labels}}` : `${name} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(" ") + 1));
}

/** Process metrics that hold still once the scans are over, with their labels. */
const settled: [string, string][] = [
  ["lading_scans_total", 'outcome="done"'],
  ["lading_scans_total", 'outcome="failed"'],
  ["lading_scan_duration_seconds_count", 'outcome="done"'],
  ["lading_scans_queued", 'state="pending"'],
  ["lading_storage_bytes", 'kind="blobs"'],
  ["lading_storage_bytes", 'kind="manifests"'],
  ["lading_registry_upload_sessions", ""],
];

for (const pair of registryPairs) {
  describe(`process metrics on both listeners [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let sink: EventSink;
    let failing: EventSink;
    const scrape = async (base: string) => {
      const res = await fetch(`${base}/metrics`);
      assert.equal(res.status, 200);
      return res.text();
    };
    const both = async () => ({
      api: await scrape(r.server.apiUrl),
      registry: await scrape(r.registryUrl),
    });
    let first: { api: string; registry: string };

    before(async () => {
      // Outbound requests to loopback need the operator's allow list; the storage sum is read
      // on every scrape so the test sees its push at once.
      r = await startRegistryServer(
        pair,
        { outboundAllow: "127.0.0.1" },
        { storageMetricsMaxAgeMs: 0 },
      );
      sink = await startEventSink(r.server.apiUrl, r.server.org.groupUid);
      failing = await startEventSink(r.server.apiUrl, r.server.org.groupUid);
      failing.mode = { kind: "status", status: 500 };
      first = await both();
    });
    after(async () => {
      await r?.close();
      await sink?.close();
      await failing?.close();
    });

    it("starts from zero for what has not happened yet", () => {
      for (const page of [first.api, first.registry]) {
        assert.equal(sample(page, "lading_event_deliveries_total", 'outcome="delivered"'), 0);
        assert.equal(sample(page, "lading_scans_total", 'outcome="done"'), 0);
        assert.equal(sample(page, "lading_scans_total", 'outcome="failed"'), 0);
        assert.equal(sample(page, "lading_registry_upload_sessions"), 0);
        assert.equal(sample(page, "lading_storage_bytes", 'kind="blobs"'), 0);
      }
    });

    it("counts deliveries, scans, storage and upload sessions, the same on both listeners", async () => {
      const rest = (method: string, path: string, body?: unknown) =>
        restCall(r.server.apiUrl, r.server.org.token, method, path, body as JsonObject);
      const org = r.server.org.groupUid;
      // Each subscription's own creation is delivered to it: once accepted, once refused.
      ok(await rest("POST", `/events/v2/subscriptions/${org}`, { sink: sink.url }));
      ok(await rest("POST", `/events/v2/subscriptions/${org}`, { sink: failing.url }));
      const oci = ociClient(r.registryUrl, r.ownerToken);
      const image = await imageOf([[packageFiles.osRelease, packageFiles.apk]]);
      const scanned = await oci.pushImage("acme/metrics", "v1", image);
      // A layer that is not gzip fails its scan.
      const broken = await imageOf([Buffer.from("not a gzip layer")]);
      const failed = await oci.pushImage("acme/metrics", "broken", broken);
      const layerBytes = [...image.blobs.values()].reduce((n, b) => n + b.length, 0);
      const open = await oci.fetch("/v2/acme/metrics/blobs/uploads/", { method: "POST" });
      assert.equal(open.status, 202);
      await open.arrayBuffer();

      const db = r.server.lading.store.db;
      for (const [digest, state] of [
        [scanned, "done"],
        [failed, "failed"],
      ]) {
        await waitFor(`the scan of ${digest}`, async () => {
          const row = await db
            .selectFrom("image_scans")
            .select("state")
            .where("digest", "=", digest)
            .executeTakeFirst();
          return row?.state === state ? row : undefined;
        });
      }
      await sink.waitFor(() => sink.accepted().length >= 1);
      // The counters move once the attempt is recorded, a moment after the sink answered.
      const now = await waitFor("the delivery counters", async () => {
        const pages = await both();
        const counted = (name: string, labels: string) =>
          (sample(pages.api, name, labels) ?? 0) >= 1;
        return counted("lading_event_deliveries_total", 'outcome="delivered"') &&
          counted("lading_event_deliveries_total", 'outcome="retry"') &&
          counted("lading_scans_total", 'outcome="failed"')
          ? pages
          : undefined;
      });
      for (const page of [now.api, now.registry]) {
        assert.ok((sample(page, "lading_scans_total", 'outcome="done"') ?? 0) >= 1);
        assert.ok((sample(page, "lading_scan_duration_seconds_count", 'outcome="done"') ?? 0) >= 1);
        assert.ok((sample(page, "lading_scan_duration_seconds_sum", 'outcome="done"') ?? 0) > 0);
        assert.ok((sample(page, "lading_storage_bytes", 'kind="blobs"') ?? 0) >= layerBytes);
        assert.ok((sample(page, "lading_storage_bytes", 'kind="manifests"') ?? 0) > 0);
        assert.equal(sample(page, "lading_registry_upload_sessions"), 1);
        assert.notEqual(sample(page, "lading_scans_queued", 'state="pending"'), undefined);
        assert.notEqual(sample(page, "lading_scans_queued", 'state="scanning"'), undefined);
      }
      // One process, one set of figures: both listeners serve the same values (deliveries go
      // on, to the refusing sink and of the push events, so the later scrape has at least as
      // many).
      const after = await both();
      for (const [name, labels] of settled) {
        assert.equal(
          sample(after.api, name, labels),
          sample(after.registry, name, labels),
          `${name}{${labels}}`,
        );
      }
      for (const outcome of ["delivered", "retry"]) {
        const labels = `outcome="${outcome}"`;
        const api = sample(after.api, "lading_event_deliveries_total", labels) ?? 0;
        assert.ok(api >= 1, outcome);
        assert.ok(
          (sample(after.registry, "lading_event_deliveries_total", labels) ?? 0) >= api,
          outcome,
        );
      }
      // Each listener keeps its own request metrics beside them.
      assert.match(after.api, /^lading_http_requests_total\{/m);
      assert.doesNotMatch(after.api, /^lading_registry_requests_total\{/m);
      assert.match(after.registry, /^lading_registry_requests_total\{/m);
      assert.doesNotMatch(after.api + after.registry, /acme/);
    });
  });
}
