import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { type OciClient, ociClient } from "../../../test/support/oci-client.ts";
import { buildImage, buildIndex, sha256 } from "../../../test/support/oci-layout.ts";
import { openTestStore } from "../../../test/support/stores.ts";
import { bootstrapOrganisation } from "../../app/index.ts";
import { createTokenIssuer, ensureBuiltInRoles } from "../../auth/index.ts";
import { createListener, createLogger, requestIdOf } from "../../server/index.ts";
import { createFilesystemBlobStore } from "../../store/blobs/index.ts";
import type { ManifestPushed } from "./oci-context.ts";
import { createOciDoor, type OciDoor } from "./oci-door.ts";

describe("OCI door manifest push hook", () => {
  let close: () => Promise<void>;
  let client: OciClient;
  let repoUid: () => Promise<string>;
  const heard: ManifestPushed[] = [];
  let failing = false;
  before(async () => {
    const opened = await openTestStore("sqlite");
    const dir = mkdtempSync(join(tmpdir(), "lading-door-"));
    const tokens = createTokenIssuer({ db: opened.store.db, issuerUrl: "http://api.test" });
    await ensureBuiltInRoles(opened.store.db);
    const boot = await bootstrapOrganisation(opened.store.db, "acme");
    let handler: OciDoor["handler"] = () => undefined;
    const listener = createListener({ handler: (req, res) => handler(req, res) });
    const address = await listener.listen("127.0.0.1", 0);
    const url = `http://127.0.0.1:${address.port}`;
    const door = createOciDoor({
      db: opened.store.db,
      blobs: createFilesystemBlobStore({ dir }),
      tokens,
      registryUrl: url,
      audience: `127.0.0.1:${address.port}`,
      publicOrg: "public",
      freeTierTags: ["latest"],
      log: createLogger({ level: "silent" }),
      requestIdOf,
      onManifestPushed(pushed) {
        heard.push(pushed);
        if (failing) throw new Error("the listener broke");
      },
    });
    handler = door.handler;
    const token = await tokens.mint({
      subject: boot.identityUid,
      audience: `127.0.0.1:${address.port}`,
      ttlSeconds: 600,
    });
    client = ociClient(url, token);
    repoUid = async () =>
      (
        await opened.store.db
          .selectFrom("repos")
          .select("uid")
          .where("name", "=", "app")
          .executeTakeFirstOrThrow()
      ).uid;
    close = async () => {
      await door.close();
      await listener.close({ timeoutMs: 1000 });
      await opened.close();
      rmSync(dir, { recursive: true, force: true });
    };
  });
  after(() => close?.());

  it("tells the listener of an image and of an index once each is stored", async () => {
    const amd64 = buildImage("one", "amd64");
    const arm64 = buildImage("two", "arm64");
    await client.pushImage("acme/app", "v1", amd64);
    assert.deepEqual(heard.at(-1), {
      repoUid: await repoUid(),
      digest: amd64.descriptor.digest,
      mediaType: "application/vnd.oci.image.manifest.v1+json",
      artifactType: "application/vnd.oci.image.config.v1+json",
      configMediaType: "application/vnd.oci.image.config.v1+json",
      layerMediaTypes: ["application/vnd.oci.image.layer.v1.tar+gzip"],
      subjectDigest: null,
      childDigests: [],
      tags: ["v1"],
    });
    await client.pushImage("acme/app", "arm", arm64);
    const index = buildIndex([amd64, arm64]);
    const res = await client.fetch(
      `/v2/acme/app/manifests/${index.descriptor.digest}?tag=a&tag=b`,
      {
        method: "PUT",
        body: new Uint8Array(index.bytes),
        headers: { "content-type": "application/vnd.oci.image.index.v1+json" },
      },
    );
    assert.equal(res.status, 201);
    assert.deepEqual(heard.at(-1), {
      repoUid: await repoUid(),
      digest: index.descriptor.digest,
      mediaType: "application/vnd.oci.image.index.v1+json",
      artifactType: "",
      configMediaType: "",
      layerMediaTypes: [],
      subjectDigest: null,
      childDigests: [amd64.descriptor.digest, arm64.descriptor.digest],
      tags: ["a", "b"],
    });
  });

  it("a listener that throws does not fail the push", async () => {
    failing = true;
    const image = buildImage("three");
    const count = heard.length;
    assert.equal(await client.pushImage("acme/app", "v3", image), image.descriptor.digest);
    assert.equal(heard.length, count + 1);
    const pulled = await client.fetch(`/v2/acme/app/manifests/v3`);
    assert.equal(pulled.status, 200);
    assert.equal(sha256(Buffer.from(await pulled.arrayBuffer())), image.descriptor.digest);
  });

  it("a refused push tells the listener nothing", async () => {
    failing = false;
    const count = heard.length;
    const res = await client.putManifest("acme/app", "bad", Buffer.from("{}"));
    assert.equal(res.status, 400);
    assert.equal(heard.length, count);
  });
});
