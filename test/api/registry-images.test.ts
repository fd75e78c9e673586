import assert from "node:assert/strict";
import { before, it } from "node:test";
import { failed, type Loose, matrix, ok, violations } from "../support/matrix.ts";
import { putImage, putManifest, type RegistryApi, registryApi } from "../support/registry-api.ts";

const indexType = "application/vnd.oci.image.index.v1+json";
const manifestType = "application/vnd.oci.image.manifest.v1+json";

matrix("Registry images", (h) => {
  let reg: RegistryApi;
  let repo = "";
  let single: Awaited<ReturnType<typeof putImage>> = { digest: "", size: 0, layers: [] };
  let index = "";
  const sizes: Record<string, number> = {};

  before(async () => {
    reg = registryApi(h.transport, h.server.apiUrl, h.server.org.token);
    repo = ok(await reg.createRepo(h.server.org.groupUid, { name: "multi" })).uid;
    single = await putImage(h.server, repo, "amd64", [100, 200]);
    const children: Loose[] = [];
    for (const [architecture, variant, layers] of [
      ["arm64", "", [1000]],
      ["amd64", "", [2000, 30]],
      ["arm", "v7", [500]],
    ] as const) {
      const image = await putImage(h.server, repo, architecture, [...layers]);
      const key = variant ? `${architecture}/${variant}` : architecture;
      sizes[key] = image.size;
      children.push({
        mediaType: manifestType,
        digest: image.digest,
        size: 1,
        platform: { architecture, os: "linux", ...(variant ? { variant } : {}) },
      });
    }
    children.push({
      mediaType: manifestType,
      digest: single.digest,
      size: 1,
      platform: { architecture: "unknown", os: "unknown" },
    });
    index = await putManifest(h.server, repo, {
      schemaVersion: 2,
      mediaType: indexType,
      manifests: children,
    });
  });

  it("reads the architectures of an index in index order, leaving out unknown platforms", async () => {
    const image = ok(await reg.getImage(repo, index));
    assert.deepEqual(image.architectures, ["arm64", "amd64", "arm/v7"]);
    assert.equal(image.mediaType, indexType);
    assert.equal(image.repoUid, repo);
    assert.equal(image.digest, index);
  });

  it("sizes an index's amd64 image by default, or the architecture asked for", async () => {
    const byDefault = ok(await reg.getImage(repo, index));
    assert.equal(byDefault.architecture, "amd64");
    assert.equal(byDefault.size, String(sizes.amd64));
    const arm = ok(await reg.getImage(repo, index, "arm/v7"));
    assert.equal(arm.architecture, "arm/v7");
    assert.equal(arm.size, String(sizes["arm/v7"]));
    assert.ok(arm.layers.length > 0);
    assert.notDeepEqual(arm.layers, byDefault.layers);
    const missing = failed(await reg.getImage(repo, index, "s390x"));
    assert.equal(missing.code, 3);
    assert.deepEqual(
      violations(missing).map((v) => v.field),
      ["architecture"],
    );
  });

  it("reads a single image manifest's architecture from its config", async () => {
    const image = ok(await reg.getImage(repo, single.digest));
    assert.deepEqual(image.architectures, ["amd64"]);
    assert.equal(image.architecture, "amd64");
    assert.equal(image.size, String(single.size));
    assert.deepEqual(
      image.layers,
      single.layers.map((l) => ({
        digest: l.digest,
        mediaType: l.mediaType,
        size: String(l.size),
      })),
    );
    assert.equal(failed(await reg.getImage(repo, single.digest, "arm64")).code, 3);
  });

  it("refuses malformed digests, unknown manifests and callers who cannot see the repo", async () => {
    const bad = failed(await reg.getImage(repo, "sha256:nope"));
    assert.deepEqual(
      violations(bad).map((v) => v.field),
      ["digest"],
    );
    const unknown = `sha256:${"0".repeat(64)}`;
    assert.equal(failed(await reg.getImage(repo, unknown)).code, 5);
    const identity = ok(await h.api.create("identities", h.server.org.groupUid, { name: "img" }));
    const nobody = registryApi(
      h.transport,
      h.server.apiUrl,
      await h.server.token(identity.uid as string),
    );
    assert.equal(failed(await nobody.getImage(repo, index)).code, 5);
  });

  it("needs manifest.list besides repo.list: PERMISSION_DENIED without it", async () => {
    const org = h.server.org.groupUid;
    const role = ok(
      await h.api.create("roles", org, { name: "repo-lister", capabilities: ["CAP_REPO_LIST"] }),
    );
    const identity = ok(await h.api.create("identities", org, { name: "lister" }));
    ok(await h.api.create("roleBindings", org, { identityUid: identity.uid, roleUid: role.uid }));
    const lister = registryApi(
      h.transport,
      h.server.apiUrl,
      await h.server.token(identity.uid as string),
    );
    ok(await lister.getRepo(repo));
    const denied = failed(await lister.getImage(repo, index));
    assert.equal(denied.code, 7);
    if (denied.httpStatus) assert.equal(denied.httpStatus, 403);
  });
});
