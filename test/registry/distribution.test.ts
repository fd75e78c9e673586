import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, it } from "node:test";
import { type OciClient, ociClient } from "../support/oci-client.ts";
import { buildImage, sha256 } from "../support/oci-layout.ts";
import {
  type RegistryTestServer,
  registryPairs,
  startRegistryServer,
} from "../support/registry-server.ts";
import { waitFor } from "../support/scan-images.ts";

const errorCode = async (res: Response) =>
  ((await res.json()) as { errors: { code: string }[] }).errors[0].code;

for (const pair of registryPairs) {
  describe(`OCI distribution protocol [${pair.store}, ${pair.blobs}]`, () => {
    let r: RegistryTestServer;
    let c: OciClient;
    before(async () => {
      r = await startRegistryServer(pair);
      c = ociClient(r.registryUrl, r.ownerToken);
    });
    after(() => r?.close());

    it("uploads in chunks, refusing out-of-order and repeated chunks with 416", async () => {
      const blob = Buffer.from("0123456789abcdefghij");
      const start = await c.fetch("/v2/acme/chunks/blobs/uploads/", { method: "POST" });
      assert.equal(start.status, 202);
      const location = start.headers.get("location") as string;
      assert.match(location, /^\/v2\/acme\/chunks\/blobs\/uploads\/[0-9a-f-]{36}$/);
      const patch = (from: number, to: number) =>
        c.fetch(location, {
          method: "PATCH",
          body: new Uint8Array(blob.subarray(from, to + 1)),
          headers: { "content-range": `${from}-${to}`, "content-type": "application/octet-stream" },
        });
      const first = await patch(0, 9);
      assert.equal(first.status, 202);
      assert.equal(first.headers.get("range"), "0-9");
      assert.equal((await patch(0, 9)).status, 416);
      const gap = await patch(12, 19);
      assert.equal(gap.status, 416);
      assert.equal(gap.headers.get("range"), "0-9");
      const status = await c.fetch(location);
      assert.equal(status.status, 204);
      assert.equal(status.headers.get("range"), "0-9");
      assert.equal((await patch(10, 19)).status, 202);
      const wrong = await c.fetch(`${location}?digest=${sha256("other")}`, { method: "PUT" });
      assert.equal(wrong.status, 400);
      assert.equal(await errorCode(wrong), "DIGEST_INVALID");
      const again = await c.fetch("/v2/acme/chunks/blobs/uploads/", { method: "POST" });
      const loc = again.headers.get("location") as string;
      await c.fetch(loc, { method: "PATCH", body: new Uint8Array(blob.subarray(0, 15)) });
      const done = await c.fetch(`${loc}?digest=${sha256(blob)}`, {
        method: "PUT",
        body: new Uint8Array(blob.subarray(15)),
        headers: { "content-range": "15-19" },
      });
      assert.equal(done.status, 201);
      assert.equal(done.headers.get("docker-content-digest"), sha256(blob));
      assert.equal(done.headers.get("location"), `/v2/acme/chunks/blobs/${sha256(blob)}`);
      const got = await c.fetch(`/v2/acme/chunks/blobs/${sha256(blob)}`);
      assert.equal(Buffer.from(await got.arrayBuffer()).toString(), blob.toString());
      assert.equal((await c.fetch(loc)).status, 404);
    });

    it("cancels an upload session with DELETE", async () => {
      const start = await c.fetch("/v2/acme/chunks/blobs/uploads/", { method: "POST" });
      const location = start.headers.get("location") as string;
      assert.equal((await c.fetch(location, { method: "DELETE" })).status, 204);
      const gone = await c.fetch(location);
      assert.equal(gone.status, 404);
      assert.equal(await errorCode(gone), "BLOB_UPLOAD_UNKNOWN");
    });

    it("serves blobs with Range, digest and length headers", async () => {
      const blob = Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 251));
      const digest = await c.pushBlob("acme/ranges", blob);
      const path = `/v2/acme/ranges/blobs/${digest}`;
      const head = await c.fetch(path, { method: "HEAD" });
      assert.equal(head.status, 200);
      assert.equal(head.headers.get("content-length"), "3000");
      assert.equal(head.headers.get("docker-content-digest"), digest);
      const range = async (spec: string) => c.fetch(path, { headers: { range: `bytes=${spec}` } });
      const mid = await range("500-1499");
      assert.equal(mid.status, 206);
      assert.equal(mid.headers.get("content-range"), "bytes 500-1499/3000");
      assert.deepEqual(Buffer.from(await mid.arrayBuffer()), blob.subarray(500, 1500));
      const open = await range("500-");
      assert.equal(Buffer.from(await open.arrayBuffer()).length, 2500);
      const suffix = await range("-500");
      assert.deepEqual(Buffer.from(await suffix.arrayBuffer()), blob.subarray(2500));
      const past = await range("5000-10000");
      assert.equal(past.status, 416);
      assert.equal(past.headers.get("content-range"), "bytes */3000");
      assert.equal((await range("500-0")).status, 200);
    });

    it("keeps serving when a client leaves in the middle of a blob", async () => {
      const blob = Buffer.alloc(3 << 20);
      for (let i = 0; i < blob.length; i += 4) blob.writeUInt32BE(i, i);
      const digest = await c.pushBlob("acme/leavers", blob);
      const url = new URL(`${r.registryUrl}/v2/acme/leavers/blobs/${digest}`);
      const received = await new Promise<number>((resolve) => {
        const req = request(url, { headers: { authorization: `Bearer ${r.ownerToken}` } });
        req.on("error", () => undefined);
        req.on("response", (res) => {
          res.once("data", (chunk: Buffer) => {
            req.destroy();
            resolve(chunk.length);
          });
        });
        req.end();
      });
      assert.ok(received < blob.length);
      for (let i = 0; i < 3; i++) {
        const again = await c.fetch(url.pathname);
        assert.equal(again.status, 200);
        assert.equal(sha256(Buffer.from(await again.arrayBuffer())), digest);
      }
    });

    it("mounts across repositories, or opens a session when it cannot", async () => {
      const digest = await c.pushBlob("acme/source", Buffer.from("mount me"));
      const mounted = await c.fetch(
        `/v2/acme/target/blobs/uploads/?mount=${digest}&from=acme/source`,
        { method: "POST" },
      );
      assert.equal(mounted.status, 201);
      assert.equal(mounted.headers.get("docker-content-digest"), digest);
      assert.equal(
        (await c.fetch(`/v2/acme/target/blobs/${digest}`, { method: "HEAD" })).status,
        200,
      );
      const refused = await c.fetch(
        `/v2/acme/target/blobs/uploads/?mount=${sha256("absent")}&from=acme/source`,
        { method: "POST" },
      );
      assert.equal(refused.status, 202);
      assert.match(refused.headers.get("location") ?? "", /\/blobs\/uploads\//);
      const foreign = ociClient(r.registryUrl, r.publicOrg.token);
      const cross = await foreign.fetch(
        `/v2/public/x/blobs/uploads/?mount=${digest}&from=acme/source`,
        {
          method: "POST",
        },
      );
      assert.equal(cross.status, 202);
    });

    it("checks manifests: exact bytes, 413, unknown blobs, bad names and digests", async () => {
      const image = buildImage("manifest checks");
      const missing = await c.putManifest("acme/checks", "v1", image.manifest);
      assert.equal(missing.status, 400);
      assert.equal(await errorCode(missing), "MANIFEST_BLOB_UNKNOWN");
      const leftBehind = await r.server.lading.store.db
        .selectFrom("repos")
        .select("uid")
        .where("name", "=", "checks")
        .executeTakeFirst();
      assert.equal(leftBehind, undefined, "a refused manifest creates no repo");
      const digest = await c.pushImage("acme/checks", "v1", image);
      const got = await c.fetch(`/v2/acme/checks/manifests/${digest}`);
      assert.equal(got.headers.get("content-type"), "application/vnd.oci.image.manifest.v1+json");
      assert.equal(got.headers.get("docker-content-digest"), digest);
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), image.manifest);
      const huge = Buffer.alloc(4 * 1024 * 1024 + 1, 32);
      assert.equal((await c.putManifest("acme/checks", "big", huge)).status, 413);
      const multi = await c.putManifest("acme/checks", `${digest}?tag=t1&tag=t2`, image.manifest);
      assert.equal(multi.status, 201);
      assert.equal(multi.headers.get("oci-tag"), "t1, t2");
      const listed = await c.fetch("/v2/acme/checks/tags/list");
      assert.deepEqual(((await listed.json()) as { tags: string[] }).tags, ["t1", "t2", "v1"]);
      const badDigest = await c.putManifest("acme/checks", sha256("not it"), image.manifest);
      assert.equal(await errorCode(badDigest), "DIGEST_INVALID");
      assert.equal(
        await errorCode(await c.fetch("/v2/acme/Bad_Name/manifests/v1")),
        "NAME_INVALID",
      );
      assert.equal(
        await errorCode(await c.fetch("/v2/acme/x/blobs/sha256:..%2F..")),
        "DIGEST_INVALID",
      );
      assert.equal(
        await errorCode(await c.fetch("/v2/acme/checks/manifests/nope")),
        "MANIFEST_UNKNOWN",
      );
      assert.equal(await errorCode(await c.fetch("/v2/acme/none/manifests/v1")), "NAME_UNKNOWN");
    });

    it("lists tags with n, last and Link, and deletes tags, manifests and blobs", async () => {
      const image = buildImage("tags");
      const digest = await c.pushImage("acme/tags", "b", image);
      for (const tag of ["a", "c", "d"]) await c.putManifest("acme/tags", tag, image.manifest);
      const page = await c.fetch("/v2/acme/tags/tags/list?n=2");
      assert.deepEqual(await page.json(), { name: "acme/tags", tags: ["a", "b"] });
      assert.equal(page.headers.get("link"), '</v2/acme/tags/tags/list?n=2&last=b>; rel="next"');
      const rest = await c.fetch("/v2/acme/tags/tags/list?n=2&last=b");
      assert.deepEqual(((await rest.json()) as { tags: string[] }).tags, ["c", "d"]);
      assert.equal(rest.headers.get("link"), null);
      assert.equal((await c.fetch("/v2/acme/tags/manifests/a", { method: "DELETE" })).status, 202);
      assert.equal((await c.fetch("/v2/acme/tags/manifests/a")).status, 404);
      assert.equal(
        (await c.fetch(`/v2/acme/tags/manifests/${digest}`, { method: "DELETE" })).status,
        202,
      );
      assert.equal((await c.fetch("/v2/acme/tags/manifests/c")).status, 404);
      const config = [...image.blobs.keys()][1];
      assert.equal(
        (await c.fetch(`/v2/acme/tags/blobs/${config}`, { method: "DELETE" })).status,
        202,
      );
      assert.equal((await c.fetch(`/v2/acme/tags/blobs/${config}`)).status, 404);
    });

    it("reads back exactly the referrers pushed, filtered by artifactType, once the scan is done", async () => {
      const { subject, pushed } = await pushReferrers(c, "acme/refs", [
        "application/spdx+json",
        "application/spdx+json",
        "application/vnd.cyclonedx+json",
        "application/vnd.dev.cosign.artifact.sig.v1+json",
        "application/vnd.example.peanut.butter",
      ]);
      const generated = await generatedSbomOf(r, subject, pushed.slice(0, 3));
      const body = await referrers(c, `/v2/acme/refs/referrers/${subject}`);
      assert.deepEqual(
        body.manifests.map((m) => m.digest),
        [...pushed].sort(),
      );
      const filtered = await c.fetch(
        `/v2/acme/refs/referrers/${subject}?artifactType=application/spdx%2Bjson`,
      );
      assert.equal(filtered.headers.get("oci-filters-applied"), "artifactType");
      const only = (await filtered.json()) as ReferrersBody;
      assert.deepEqual(
        only.manifests.map((m) => m.digest),
        pushed.slice(0, 2).sort(),
      );
      const first = only.manifests.find((m) => m.digest === pushed[0]);
      assert.deepEqual(first?.annotations, { kind: "application/spdx+json" });
      const none = await referrers(c, `/v2/acme/refs/referrers/${sha256("nothing")}`);
      assert.deepEqual(none.manifests, []);
      // Not listed, still offered: the image's package list names it, and it is pulled by digest.
      const api = (path: string) =>
        fetch(`${r.server.apiUrl}${path}`, {
          headers: { authorization: `Bearer ${r.server.org.token}` },
        }).then(async (res) => {
          assert.equal(res.status, 200, path);
          return (await res.json()) as unknown;
        });
      const repo = ((await api("/registry/v2/repos?name=refs")) as { repos: { uid: string }[] })
        .repos[0].uid;
      const listed = (await api(`/registry/v2/images:packages?repo=${repo}&digest=${subject}`)) as {
        architectures: { image: { sbomDigest: string; sbomSource: string } }[];
      };
      assert.deepEqual(listed.architectures[0].image, {
        ...listed.architectures[0].image,
        sbomDigest: generated,
        sbomSource: "generated",
      });
      const sbom = await c.fetch(`/v2/acme/refs/manifests/${generated}`);
      assert.equal(sbom.status, 200);
      assert.equal(
        ((await sbom.json()) as { subject: { digest: string } }).subject.digest,
        subject,
      );
    });

    describe("with --scan-sbom-referrers true", () => {
      let listing: RegistryTestServer;
      before(async () => {
        listing = await startRegistryServer(pair, { scanSbomReferrers: "true" });
      });
      after(() => listing?.close());

      it("lists the generated SBOM beside the pushed referrers, for oras discover", async () => {
        const oci = ociClient(listing.registryUrl, listing.ownerToken);
        const { subject, pushed } = await pushReferrers(oci, "acme/listed", [
          "application/vnd.dev.cosign.artifact.sig.v1+json",
        ]);
        const generated = await generatedSbomOf(listing, subject, []);
        const all = await referrers(oci, `/v2/acme/listed/referrers/${subject}`);
        assert.deepEqual(
          all.manifests.map((m) => m.digest),
          [...pushed, generated].sort(),
        );
        const spdx = await referrers(
          oci,
          `/v2/acme/listed/referrers/${subject}?artifactType=application/spdx%2Bjson`,
        );
        assert.deepEqual(
          spdx.manifests.map((m) => [m.digest, m.artifactType]),
          [[generated, "application/spdx+json"]],
        );
      });
    });

    it("keeps a session resumable when a chunk is killed halfway", async () => {
      const blob = Buffer.alloc(300 * 1024, 3);
      blob.write("head", 0);
      const start = await c.fetch("/v2/acme/resume/blobs/uploads/", { method: "POST" });
      const location = start.headers.get("location") as string;
      const first = await c.fetch(location, {
        method: "PATCH",
        body: new Uint8Array(blob.subarray(0, 1000)),
        headers: { "content-range": "0-999" },
      });
      assert.equal(first.status, 202);
      await new Promise<void>((resolve) => {
        const req = request(new URL(`${r.registryUrl}${location}`), {
          method: "PATCH",
          headers: {
            authorization: `Bearer ${r.ownerToken}`,
            "content-range": `1000-${blob.length - 1}`,
            "content-length": blob.length - 1000,
          },
        });
        req.on("error", () => resolve());
        req.write(blob.subarray(1000, 100 * 1024), () => {
          setTimeout(() => {
            req.destroy();
            resolve();
          }, 100);
        });
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      const status = await c.fetch(location);
      assert.equal(status.status, 204);
      assert.equal(status.headers.get("range"), "0-999");
      const rest = await c.fetch(`${location}?digest=${sha256(blob)}`, {
        method: "PUT",
        body: new Uint8Array(blob.subarray(1000)),
        headers: { "content-range": `1000-${blob.length - 1}` },
      });
      assert.equal(rest.status, 201);
      const got = await c.fetch(`/v2/acme/resume/blobs/${sha256(blob)}`);
      assert.equal(sha256(Buffer.from(await got.arrayBuffer())), sha256(blob));
    });

    it("leaves no visible blob when an upload is killed halfway", async () => {
      const blob = Buffer.alloc(256 * 1024, 7);
      const digest = sha256(blob);
      const url = new URL(`${r.registryUrl}/v2/acme/killed/blobs/uploads/?digest=${digest}`);
      await new Promise<void>((resolve) => {
        const req = request(url, {
          method: "POST",
          headers: { authorization: `Bearer ${r.ownerToken}`, "content-length": blob.length },
        });
        req.on("error", () => resolve());
        req.write(blob.subarray(0, 100 * 1024), () => {
          setTimeout(() => {
            req.destroy();
            resolve();
          }, 100);
        });
      });
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.equal(
        (await c.fetch(`/v2/acme/killed/blobs/${digest}`, { method: "HEAD" })).status,
        404,
      );
      const rows = await r.server.lading.store.db
        .selectFrom("blobs")
        .select("digest")
        .where("digest", "=", digest)
        .execute();
      assert.equal(rows.length, 0);
    });
  });
}

interface ReferrersBody {
  manifests: { digest: string; artifactType: string; annotations: object }[];
}

/** GETs a referrers list, checking it is an OCI index. */
async function referrers(c: OciClient, path: string): Promise<ReferrersBody> {
  const res = await c.fetch(path);
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "application/vnd.oci.image.index.v1+json");
  return (await res.json()) as ReferrersBody;
}

/**
 * Pushes an image to `name` and one artifact of each type in `types` whose subject it is, as
 * the conformance suite does; returns the image digest and the artifacts' digests in order.
 */
async function pushReferrers(c: OciClient, name: string, types: string[]) {
  const image = buildImage(`subject of ${name}`);
  const subject = await c.pushImage(name, "v1", image);
  const emptyDigest = await c.pushBlob(name, Buffer.from("{}"));
  const empty = { mediaType: "application/vnd.oci.empty.v1+json", digest: emptyDigest, size: 2 };
  const pushed: string[] = [];
  for (const [i, type] of types.entries()) {
    const bytes = Buffer.from(
      JSON.stringify({
        schemaVersion: 2,
        mediaType: "application/vnd.oci.image.manifest.v1+json",
        artifactType: type,
        config: empty,
        layers: [empty],
        subject: image.descriptor,
        annotations: i === 0 ? { kind: type } : { kind: type, n: String(i) },
      }),
    );
    const put = await c.putManifest(name, sha256(bytes), bytes);
    assert.equal(put.status, 201);
    assert.equal(put.headers.get("oci-subject"), subject);
    pushed.push(sha256(bytes));
  }
  return { subject, pushed };
}

/**
 * Waits until the scan of `subject` is done with every SBOM in `sboms` read (the pushed ones
 * are empty, so Lading generates its own) and returns the generated SBOM's digest.
 */
function generatedSbomOf(r: RegistryTestServer, subject: string, sboms: string[]) {
  const db = r.server.lading.store.db;
  return waitFor("the generated SBOM", async () => {
    const rows = await db
      .selectFrom("image_sboms")
      .select(["sbom_digest", "source"])
      .where("image_digest", "=", subject)
      .execute();
    const scan = await db
      .selectFrom("image_scans")
      .select("state")
      .where("digest", "=", subject)
      .executeTakeFirst();
    const read = sboms.every((d) => rows.some((row) => row.sbom_digest === d));
    const done = scan?.state === "done" && read;
    return done ? rows.find((row) => row.source === "generated")?.sbom_digest : undefined;
  });
}
