import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { createTermsGate } from "../../src/registry/index.ts";
import { newChildUid } from "../../src/uidp/index.ts";
import { invitesApi } from "../support/iam-fixtures.ts";
import { detail, failed, type Loose, ok } from "../support/matrix.ts";
import { type OciClient, ociClient } from "../support/oci-client.ts";
import { buildImage } from "../support/oci-layout.ts";
import { registryApi } from "../support/registry-api.ts";
import { registryPairs } from "../support/registry-server.ts";
import { startS3rver } from "../support/s3rver.ts";
import { startTestServer, type TestServer } from "../support/server.ts";

const required = "tos-2024,privacy.v1";

/** The documented OCI body of a pull refused for `missing` documents. */
function refusal(missing: string[]) {
  const message = `Precondition failed: terms not accepted: ${missing.join(", ")}`;
  return {
    errors: [
      {
        code: "DENIED",
        message,
        detail: {
          code: 9,
          message,
          details: [
            {
              "@type": "type.googleapis.com/google.rpc.ErrorInfo",
              reason: "FAILED_PRECONDITION",
              domain: "registry.lading.dev",
            },
            {
              "@type": "type.googleapis.com/google.rpc.PreconditionFailure",
              violations: missing.map((id) => ({
                type: "TERMS_NOT_ACCEPTED",
                subject: id,
                description: `terms document ${id} must be accepted for this organisation`,
              })),
            },
          ],
        },
      },
    ],
  };
}

for (const pair of registryPairs) {
  describe(`Required terms gate registry pulls [${pair.store}, ${pair.blobs}]`, () => {
    let server: TestServer;
    let c: OciClient;
    let s3: { close(): Promise<void> } | undefined;
    let s3dir = "";
    let digest = "";
    let layer = "";
    before(async () => {
      let blobStore: string | undefined;
      if (pair.blobs === "s3") {
        s3dir = await mkdtemp(join(tmpdir(), "lading-s3-"));
        const s3server = await startS3rver(s3dir, "lading-registry");
        s3 = s3server;
        process.env.AWS_ACCESS_KEY_ID = "S3RVER";
        process.env.AWS_SECRET_ACCESS_KEY = "S3RVER";
        blobStore = `s3://lading-registry/blobs?endpoint=${s3server.endpoint}&region=us-east-1&forcePathStyle=true`;
      }
      server = await startTestServer(pair.store, "acme", { blobStore, requiredTerms: required });
      const host = server.lading.registryAudience;
      c = ociClient(
        server.lading.registryUrl,
        await server.token(server.org.identityUid, { audience: host }),
      );
    });
    after(async () => {
      await server?.close();
      await s3?.close();
      if (s3dir) await rm(s3dir, { recursive: true, force: true });
    });

    it("lets pushes through while the terms are not accepted", async () => {
      const image = buildImage("terms gate");
      digest = await c.pushImage("acme/app", "v1", image);
      layer = [...image.blobs.keys()].find((d) => d !== digest) as string;
      assert.ok(layer);
    });

    it("refuses manifest and blob GET and HEAD with 403 DENIED naming every missing document", async () => {
      for (const path of [
        "/v2/acme/app/manifests/v1",
        `/v2/acme/app/manifests/${digest}`,
        `/v2/acme/app/blobs/${layer}`,
      ]) {
        const res = await c.fetch(path);
        assert.equal(res.status, 403, path);
        assert.deepEqual(await res.json(), refusal(["privacy.v1", "tos-2024"]));
        const head = await c.fetch(path, { method: "HEAD" });
        assert.equal(head.status, 403);
      }
    });

    /** The API reads of an image's contents: the image, its report and its daily counts. */
    const imageReads = (api: ReturnType<typeof registryApi>, repoUid: string) => {
      const today = new Date().toISOString().slice(0, 10);
      const counts = { repo: "acme/app", tag: "v1", from: today, to: today };
      return {
        getImage: () => api.getImage(repoUid, digest),
        getVulnReport: () => api.getVulnReport(repoUid, digest),
        listVulnCountReports: () => api.listVulnCountReports(counts),
        listVulnCountReportsCumulative: () => api.listVulnCountReports(counts, true),
      };
    };
    const repoUid = () =>
      server.lading.store.db
        .selectFrom("repos")
        .select("uid")
        .where("name", "=", "app")
        .executeTakeFirstOrThrow()
        .then((row) => row.uid);

    it("refuses the Images API, reports and counts with FAILED_PRECONDITION and the same violations", async () => {
      const repo = await repoUid();
      for (const transport of ["rest", "grpc"] as const) {
        const api = registryApi(transport, server.apiUrl, server.org.token);
        for (const [method, read] of Object.entries(imageReads(api, repo))) {
          const result = failed(await read());
          assert.equal(result.code, 9, method);
          if (result.httpStatus) assert.equal(result.httpStatus, 400);
          const violations = (detail(result, "PreconditionFailure") as Loose).violations as Loose[];
          assert.deepEqual(
            violations.map((v) => [v.type, v.subject]),
            [
              ["TERMS_NOT_ACCEPTED", "privacy.v1"],
              ["TERMS_NOT_ACCEPTED", "tos-2024"],
            ],
            method,
          );
        }
      }
    });

    it("allows pulls once every document is accepted on the repo's group or an ancestor", async () => {
      const api = invitesApi("rest", server.apiUrl, server.org.token);
      ok(await api.acceptTerms(server.org.groupUid, ["tos-2024"]));
      const partly = await c.fetch("/v2/acme/app/manifests/v1");
      assert.equal(partly.status, 403);
      assert.deepEqual(await partly.json(), refusal(["privacy.v1"]));
      ok(await api.acceptTerms(server.org.groupUid, ["privacy.v1"]));
      assert.equal((await c.fetch("/v2/acme/app/manifests/v1")).status, 200);
      assert.equal((await c.fetch(`/v2/acme/app/blobs/${layer}`)).status, 200);
      assert.equal((await c.fetch(`/v2/acme/app/blobs/${layer}`, { method: "HEAD" })).status, 200);
      const registry = registryApi("grpc", server.apiUrl, server.org.token);
      const reads = imageReads(registry, await repoUid());
      ok(await reads.getImage());
      ok(await reads.listVulnCountReports());
      ok(await reads.listVulnCountReportsCumulative());
      // Past the gate the report is there, or not yet when the scan after the push is still running.
      const report = await reads.getVulnReport();
      assert.ok(report.ok || report.code === 5, JSON.stringify(report));
    });

    it("caches answers per group until forgotten; accepting through the API forgets at once", async () => {
      const { db } = server.lading.store;
      const gate = createTermsGate(db, ["extra"], 3_600_000);
      const group = server.org.groupUid;
      const sub = newChildUid(group);
      assert.deepEqual(await gate.missing(sub), ["extra"]);
      const time = new Date().toISOString();
      await db
        .insertInto("terms_acceptances")
        .values({
          uid: newChildUid(group),
          parent_uid: group,
          doc_id: "extra",
          accepted_by: "",
          create_time: time,
          update_time: time,
        })
        .execute();
      assert.deepEqual(await gate.missing(sub), ["extra"], "cached");
      gate.forget();
      assert.deepEqual(await gate.missing(sub), []);
      assert.deepEqual(await createTermsGate(db, []).missing(sub), []);
    });
  });
}
