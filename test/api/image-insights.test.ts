import assert from "node:assert/strict";
import { before, it } from "node:test";
import type { JsonObject } from "@bufbuild/protobuf";
import { bootstrapOrganisation } from "../../src/app/index.ts";
import { ImageInsightsService } from "../../src/gen/lading/registry/v2/image_insights_pb.js";
import { ensurePublicAdvisoriesGroup, parseOpenVex } from "../../src/vulnerabilities/index.ts";
import { grpcCaller, type Result, restCall } from "../support/api-client.ts";
import { failed, type Loose, matrix, ok, violations } from "../support/matrix.ts";
import { putImage, putManifest, registryApi } from "../support/registry-api.ts";
import { apk, match, recordAdvisory, recordScan } from "../support/scan-data.ts";

const indexType = "application/vnd.oci.image.index.v1+json";
const manifestType = "application/vnd.oci.image.manifest.v1+json";

/** DiffImages and GetImageVex over the harness transport. */
function insights(transport: "rest" | "grpc", baseUrl: string, token: string | undefined) {
  const grpc = grpcCaller(baseUrl, token);
  const call = (method: string, verb: string, request: Record<string, string>): Promise<Result> =>
    transport === "rest"
      ? restCall(
          baseUrl,
          token,
          "GET",
          `/registry/v2/images:${verb}?${new URLSearchParams(request)}`,
        )
      : grpc(ImageInsightsService, method, request as JsonObject);
  return {
    diff: (repo: string, from: string, to: string) =>
      call("diffImages", "diff", { repo, from, to }),
    vex: (repo: string, digest: string) => call("getImageVex", "vex", { repo, digest }),
    packages: (repo: string, digest: string) =>
      call("listImagePackages", "packages", { repo, digest }),
  };
}

const openssl0 = apk("openssl", "3.1.0-r0", "openssl");
const openssl4 = apk("openssl", "3.1.4-r0", "openssl");
const busybox = apk("busybox", "1.36.1-r0");
const zlib = apk("zlib", "1.3-r0");
const curl = apk("curl", "8.5.0-r0");
const lodash0 = { name: "lodash", version: "4.17.20", purl: "pkg:npm/lodash@4.17.20" };
const lodash1 = { name: "lodash", version: "4.17.21", purl: "pkg:npm/lodash@4.17.21" };

// Scans and reports are driven by hand here; the server must not scan or re-match by itself.
matrix(
  "Image diff and VEX",
  (h) => {
    let api: ReturnType<typeof insights>;
    let repo = "";
    const amd: Record<"from" | "to", { digest: string; size: number }> = {
      from: { digest: "", size: 0 },
      to: { digest: "", size: 0 },
    };
    const arm: Record<"from" | "to", { digest: string; size: number }> = {
      from: { digest: "", size: 0 },
      to: { digest: "", size: 0 },
    };
    let fromIndex = "";
    let toIndex = "";

    before(async () => {
      api = insights(h.transport, h.server.apiUrl, h.server.org.token);
      const reg = registryApi(h.transport, h.server.apiUrl, h.server.org.token);
      repo = ok(await reg.createRepo(h.server.org.groupUid, { name: "app" })).uid;
      const db = h.server.lading.store.db;
      amd.from = await putImage(h.server, repo, "amd64", [1000, 200]);
      amd.to = await putImage(h.server, repo, "amd64", [1500, 200]);
      arm.from = await putImage(h.server, repo, "arm64", [900]);
      arm.to = await putImage(h.server, repo, "arm64", [950]);
      const index = (a: string, b: string) =>
        putManifest(h.server, repo, {
          schemaVersion: 2,
          mediaType: indexType,
          manifests: [
            {
              mediaType: manifestType,
              digest: a,
              size: 1,
              platform: { architecture: "amd64", os: "linux" },
            },
            {
              mediaType: manifestType,
              digest: b,
              size: 1,
              platform: { architecture: "arm64", os: "linux" },
            },
          ],
        });
      fromIndex = await index(amd.from.digest, arm.from.digest);
      toIndex = await index(amd.to.digest, arm.to.digest);
      await recordScan(db, repo, amd.from.digest, {
        state: "done",
        packages: [busybox, openssl0, zlib, lodash0],
        matches: [
          match("CVE-2023-0001", "HIGH", openssl0),
          match("CVE-2023-0002", "CRITICAL", zlib),
          match("CVE-2021-23337", "HIGH", lodash0),
          match("CVE-2023-0003", "LOW", busybox),
        ],
      });
      await recordScan(db, repo, amd.to.digest, {
        state: "done",
        generation: 3,
        reportTime: "2026-02-01T00:00:00.000Z",
        packages: [busybox, openssl4, curl, lodash1],
        matches: [
          match("CVE-2023-0003", "LOW", busybox),
          match("CVE-2024-0004", "MEDIUM", curl, { state: "FIXED", versions: ["8.6.0-r0"] }),
          match("CVE-2024-0005", "HIGH", openssl4),
        ],
      });
      await recordScan(db, repo, arm.from.digest, { state: "done", packages: [busybox] });
      await recordScan(db, repo, arm.to.digest, { state: "pending" });

      const pub = await ensurePublicAdvisoriesGroup(db);
      const t = (day: number) => `2026-01-${String(day).padStart(2, "0")}T00:00:00.000Z`;
      const detection = (day: number) => ({ timestamp: t(day), type: "detection" as const });
      await recordAdvisory(db, pub, {
        id: "CGA-2222-2222-2222",
        artifact: "openssl",
        aliases: ["CVE-2024-0005"],
        events: [detection(1), { timestamp: t(2), type: "fixed", fixedVersion: "3.1.5-r0" }],
      });
      await recordAdvisory(db, pub, {
        id: "CGA-3333-3333-3333",
        artifact: "busybox",
        aliases: ["CVE-2023-0003", "GHSA-aaaa-bbbb-cccc"],
        events: [
          detection(1),
          {
            timestamp: t(3),
            type: "false-positive-determination",
            falsePositiveType: "vulnerable-code-not-in-execution-path",
            note: "the applet is not built",
          },
        ],
      });
      await recordAdvisory(db, pub, {
        id: "CGA-4444-4444-4444",
        artifact: "openssl",
        aliases: ["CVE-2023-0001"],
        events: [detection(1), { timestamp: t(4), type: "fixed", fixedVersion: "3.1.2-r0" }],
      });
      await recordAdvisory(db, pub, {
        id: "CGA-5555-5555-5555",
        artifact: "curl",
        aliases: ["CVE-2024-9999"],
        events: [{ timestamp: t(5), type: "fix-not-planned", note: "end of life" }],
      });
      await recordAdvisory(db, pub, {
        id: "CGA-6666-6666-6666",
        artifact: "curl",
        aliases: ["CVE-2024-8888"],
        events: [detection(6)],
      });
      await recordAdvisory(db, pub, {
        id: "CGA-7777-7777-7777",
        artifact: "curl",
        aliases: ["CVE-2024-7777"],
        events: [{ timestamp: t(7), type: "analysis-not-planned" }],
      });
      // Another organisation's own advisory: never read for acme's images.
      await recordAdvisory(db, "b".repeat(40), {
        id: "CGA-8888-8888-8888",
        artifact: "busybox",
        aliases: ["CVE-2024-6666"],
        events: [{ timestamp: t(8), type: "fix-not-planned" }],
      });
    });

    it("compares two indexes per architecture: packages, vulnerabilities, size", async () => {
      const diff = ok(await api.diff(repo, fromIndex, toIndex));
      assert.equal(diff.repoUid, repo);
      assert.deepEqual(
        diff.architectures.map((a: Loose) => a.architecture),
        ["amd64", "arm64"],
      );
      const [x86, arm64] = diff.architectures as Loose[];
      assert.equal(x86.complete, true);
      assert.deepEqual(x86.from, {
        digest: amd.from.digest,
        size: String(amd.from.size),
        scanState: "done",
        reason: "",
        sbomDigest: "",
        sbomSource: "generated",
      });
      assert.equal(x86.sizeChange, "500");
      const short = (list: Loose[]) => list.map((p) => `${p.name} ${p.fromVersion}>${p.toVersion}`);
      assert.deepEqual(short(x86.added), ["curl >8.5.0-r0"]);
      assert.deepEqual(short(x86.removed), ["zlib 1.3-r0>"]);
      assert.deepEqual(short(x86.changed), ["lodash 4.17.20>4.17.21", "openssl 3.1.0-r0>3.1.4-r0"]);
      assert.equal(x86.changed[0].purl, "pkg:npm/lodash@4.17.21");
      assert.equal(x86.changed[0].ecosystem, "npm");
      const ids = (list: Loose[]) => list.map((v) => `${v.id} ${v.severity}`);
      assert.deepEqual(ids(x86.fixed), [
        "CVE-2023-0002 CRITICAL",
        "CVE-2021-23337 HIGH",
        "CVE-2023-0001 HIGH",
      ]);
      assert.deepEqual(x86.fixed[0].packages, ["zlib@1.3-r0"]);
      assert.deepEqual(ids(x86.introduced), ["CVE-2024-0005 HIGH", "CVE-2024-0004 MEDIUM"]);
      assert.deepEqual(x86.countsBefore, {
        critical: 1,
        high: 2,
        medium: 0,
        low: 1,
        negligible: 0,
        unknown: 0,
      });
      assert.deepEqual(x86.countsAfter, {
        critical: 0,
        high: 1,
        medium: 1,
        low: 1,
        negligible: 0,
        unknown: 0,
      });

      assert.equal(arm64.complete, false);
      assert.equal(arm64.from.scanState, "done");
      assert.equal(arm64.to.scanState, "pending");
      assert.equal(arm64.sizeChange, "50");
      assert.deepEqual([arm64.added, arm64.fixed], [[], []]);
    });

    it("pairs a single image with an index's image of its architecture", async () => {
      const diff = ok(await api.diff(repo, amd.from.digest, toIndex));
      const [x86, arm64] = diff.architectures as Loose[];
      assert.equal(x86.architecture, "amd64");
      assert.equal(x86.complete, true);
      assert.equal(x86.added.length, 1);
      assert.equal(arm64.from.scanState, "absent");
      assert.equal(arm64.from.digest, "");
      assert.equal(arm64.sizeChange, "0");
      const same = ok(await api.diff(repo, fromIndex, fromIndex)).architectures[0];
      assert.deepEqual([same.added, same.changed, same.fixed, same.sizeChange], [[], [], [], "0"]);
    });

    it("states the image's vulnerabilities as OpenVEX, from matches and advisories", async () => {
      const vex = ok(await api.vex(repo, toIndex));
      assert.equal(vex["@context"], "https://openvex.dev/ns/v0.2.0");
      assert.match(vex["@id"], /^urn:lading:vex:[0-9a-f]{64}$/);
      assert.equal(vex.author, "Lading");
      assert.equal(vex.version, 3);
      assert.equal(vex.timestamp, "2026-02-01T00:00:00.000Z");
      const host = h.server.lading.registryAudience;
      const product = `pkg:oci/app@${amd.to.digest}?arch=amd64&repository_url=${host}/acme/app`;
      const lines = (vex.statements as Loose[]).map((s) => {
        assert.deepEqual(
          s.products.map((p: Loose) => p["@id"]),
          [product],
        );
        const extra = s.justification ?? s.action_statement ?? s.status_notes ?? "";
        return `${s.vulnerability.name} ${s.products[0].subcomponents[0]["@id"].split("@")[0]} ${s.status} ${extra}`;
      });
      assert.deepEqual(lines, [
        "CVE-2023-0001 pkg:apk/wolfi/openssl fixed ",
        "CVE-2023-0003 pkg:apk/wolfi/busybox not_affected vulnerable_code_not_in_execute_path",
        "CVE-2024-0004 pkg:apk/wolfi/curl affected Update curl to 8.6.0-r0 or later",
        "CVE-2024-0005 pkg:apk/wolfi/openssl affected Update openssl to 3.1.5-r0 or later",
        "CVE-2024-7777 pkg:apk/wolfi/curl under_investigation No analysis is planned",
        "CVE-2024-9999 pkg:apk/wolfi/curl affected No fix is planned: end of life",
      ]);
      const busyboxStatement = (vex.statements as Loose[])[1];
      assert.deepEqual(busyboxStatement.vulnerability.aliases, [
        "CGA-3333-3333-3333",
        "GHSA-aaaa-bbbb-cccc",
      ]);
      assert.equal(busyboxStatement.impact_statement, "the applet is not built");
      assert.equal(busyboxStatement.timestamp, "2026-01-03T00:00:00.000Z");
      assert.equal(busyboxStatement.products[0].subcomponents[0]["@id"], busybox.purl);
      // Same document for the same report generation.
      assert.equal(ok(await api.vex(repo, toIndex))["@id"], vex["@id"]);
    });

    it("round-trips through Lading's own OpenVEX importer", async () => {
      const vex = ok(await api.vex(repo, toIndex));
      const parsed = parseOpenVex({ file: "-", text: JSON.stringify(vex) });
      assert.deepEqual(parsed.rejected ?? [], []);
      const latest = new Map(
        parsed.advisories.map((a) => [
          a.aliases.find((x) => x.startsWith("CVE-")),
          a.events.at(-1),
        ]),
      );
      assert.equal(latest.get("CVE-2023-0001")?.type, "fixed");
      assert.equal(latest.get("CVE-2023-0001")?.fixedVersion, amd.to.digest);
      assert.equal(latest.get("CVE-2023-0003")?.type, "false-positive-determination");
      assert.equal(
        latest.get("CVE-2023-0003")?.falsePositiveType,
        "vulnerable-code-not-in-execution-path",
      );
      assert.equal(latest.get("CVE-2024-0005")?.type, "true-positive-determination");
      assert.equal(latest.get("CVE-2024-0005")?.note, "Update openssl to 3.1.5-r0 or later");
      assert.equal(latest.get("CVE-2024-7777")?.type, "detection");
      assert.equal(parsed.advisories.length, 6);
      assert.ok(parsed.advisories.every((a) => a.componentName !== ""));
    });

    it("states a single image without arch qualifier; refuses one with no finished scan", async () => {
      const vex = ok(await api.vex(repo, amd.from.digest));
      const host = h.server.lading.registryAudience;
      assert.equal(
        vex.statements[0].products[0]["@id"],
        `pkg:oci/app@${amd.from.digest}?repository_url=${host}/acme/app`,
      );
      const pending = failed(await api.vex(repo, arm.to.digest));
      assert.equal(pending.code, 9);
    });

    it("compares at most 16 platforms of an index", async () => {
      const children = [];
      for (let i = 0; i < 17; i++) {
        const image = await putImage(h.server, repo, `arch${i}`, [10]);
        children.push({
          mediaType: manifestType,
          digest: image.digest,
          size: 1,
          platform: { architecture: `arch${i}`, os: "linux" },
        });
      }
      const wide = await putManifest(h.server, repo, {
        schemaVersion: 2,
        mediaType: indexType,
        manifests: children,
      });
      const diff = ok(await api.diff(repo, wide, wide));
      assert.equal(diff.architectures.length, 16);
      assert.equal(diff.architectures[15].architecture, "arch15");
      assert.equal(diff.architectures[0].from.scanState, "not_scanned");
    });

    it("lists an image's packages per architecture, sorted, empty until its scan is done", async () => {
      const listed = ok(await api.packages(repo, fromIndex));
      assert.equal(listed.repoUid, repo);
      assert.equal(listed.digest, fromIndex);
      assert.deepEqual(
        listed.architectures.map((a: Loose) => [a.architecture, a.image.digest, a.image.scanState]),
        [
          ["amd64", amd.from.digest, "done"],
          ["arm64", arm.from.digest, "done"],
        ],
      );
      const amd64 = listed.architectures[0];
      assert.equal(amd64.totalCount, 4);
      assert.deepEqual(
        amd64.packages.map((p: Loose) => `${p.name}@${p.version}`),
        ["busybox@1.36.1-r0", "lodash@4.17.20", "openssl@3.1.0-r0", "zlib@1.3-r0"],
      );
      assert.equal(amd64.packages[0].purl, busybox.purl);
      const pending = ok(await api.packages(repo, toIndex)).architectures[1];
      assert.deepEqual(
        [pending.image.scanState, pending.totalCount, pending.packages],
        ["pending", 0, []],
      );
      const single = ok(await api.packages(repo, amd.to.digest)).architectures;
      assert.equal(single.length, 1);
      assert.equal(single[0].totalCount, 4);
      assert.deepEqual(
        violations(failed(await api.packages("x", "sha256:nope")))
          .map((v) => v.field)
          .sort(),
        ["digest", "repo"],
      );
      assert.equal(failed(await api.packages(repo, `sha256:${"0".repeat(64)}`)).code, 5);
    });

    it("validates the repo and digests, and answers NOT_FOUND for an unknown manifest", async () => {
      const bad = failed(await api.diff("nope", "sha256:bad", ""));
      assert.deepEqual(
        violations(bad).map((v) => v.field),
        ["repo", "from", "to"],
      );
      assert.equal(bad.code, 3);
      assert.deepEqual(
        violations(await api.vex(repo, "sha256:ABC")).map((v) => v.field),
        ["digest"],
      );
      const unknown = `sha256:${"0".repeat(64)}`;
      assert.equal(failed(await api.diff(repo, fromIndex, unknown)).code, 5);
      assert.equal(failed(await api.vex(repo, unknown)).code, 5);
    });

    it("refuses callers of another organisation, without the capabilities, or unauthenticated", async () => {
      const db = h.server.lading.store.db;
      const other = await bootstrapOrganisation(db, `other${h.transport}`);
      const stranger = insights(
        h.transport,
        h.server.apiUrl,
        await h.server.token(other.identityUid),
      );
      assert.equal(failed(await stranger.diff(repo, fromIndex, toIndex)).code, 5);
      assert.equal(failed(await stranger.vex(repo, toIndex)).code, 5);
      assert.equal(failed(await stranger.packages(repo, toIndex)).code, 5);

      const org = h.server.org.groupUid;
      const holding = async (name: string, capabilities: string[]) => {
        const role = ok(await h.api.create("roles", org, { name, capabilities }));
        const identity = ok(await h.api.create("identities", org, { name }));
        ok(
          await h.api.create("roleBindings", org, { identityUid: identity.uid, roleUid: role.uid }),
        );
        return insights(h.transport, h.server.apiUrl, await h.server.token(identity.uid as string));
      };
      const nothing = insights(
        h.transport,
        h.server.apiUrl,
        await h.server.token(
          ok(await h.api.create("identities", org, { name: "none" })).uid as string,
        ),
      );
      assert.equal(failed(await nothing.diff(repo, fromIndex, toIndex)).code, 5);
      const lister = await holding("lister", ["CAP_REPO_LIST"]);
      const denied = failed(await lister.diff(repo, fromIndex, toIndex));
      assert.equal(denied.code, 7);
      if (denied.httpStatus) assert.equal(denied.httpStatus, 403);
      const noReports = await holding("metadata", ["CAP_REPO_LIST", "CAP_MANIFEST_METADATA_LIST"]);
      assert.equal(failed(await noReports.diff(repo, fromIndex, toIndex)).code, 7);
      assert.equal(failed(await noReports.vex(repo, toIndex)).code, 7);
      assert.equal(failed(await noReports.packages(repo, toIndex)).code, 7);
      const reader = await holding("reader", [
        "CAP_REPO_LIST",
        "CAP_MANIFEST_METADATA_LIST",
        "CAP_VULN_REPORTS_LIST",
      ]);
      ok(await reader.diff(repo, fromIndex, toIndex));
      ok(await reader.vex(repo, toIndex));
      ok(await reader.packages(repo, toIndex));

      const anonymous = insights(h.transport, h.server.apiUrl, undefined);
      const refused = failed(await anonymous.diff(repo, fromIndex, toIndex));
      assert.equal(refused.code, 16);
      assert.equal(failed(await anonymous.vex(repo, toIndex)).code, 16);
      assert.equal(failed(await anonymous.packages(repo, toIndex)).code, 16);
    });
  },
  { scanImages: "false" },
);
