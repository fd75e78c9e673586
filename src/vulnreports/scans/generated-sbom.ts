import { createHash } from "node:crypto";
import { Readable } from "node:stream";
import type { Kysely } from "kysely";
import {
  claimContent,
  recordManifestRefs,
  releaseClaim,
  touchBlob,
} from "../../lifecycle/index.ts";
import type { BlobBody, BlobStore } from "../../store/blobs/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import type { LayerInput } from "../layers/layer-walker.ts";
import { type ImagePackages, scanImagePackages } from "../layers/scan-image-packages.ts";
import type { ScanDescriptor } from "./image-manifest.ts";
import { type SbomSubject, spdxChunks } from "./spdx-writer.ts";

export const SPDX_MEDIA_TYPE = "application/spdx+json";
const EMPTY_CONFIG = {
  mediaType: "application/vnd.oci.empty.v1+json",
  bytes: Buffer.from("{}"),
};
const OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json";

/**
 * The image's layers from the blob store, base first, each opened only when the scanner asks
 * for it. `signal` destroys the layer being read, so a timed-out scan stops reading.
 */
export async function* layersFromStore(
  blobs: BlobStore,
  layers: readonly ScanDescriptor[],
  signal: AbortSignal,
): AsyncGenerator<LayerInput> {
  for (const layer of layers) {
    signal.throwIfAborted();
    const stream: BlobBody = await blobs.get(layer.digest);
    const stop = () => stream.destroy(new Error("the scan was stopped"));
    signal.addEventListener("abort", stop, { once: true });
    stream.once("close", () => signal.removeEventListener("abort", stop));
    yield { mediaType: layer.mediaType, stream };
  }
}

/** Streams the layers into the package scanner; the first layer that failed fails the scan. */
export async function scanLayersOf(
  blobs: BlobStore,
  layers: readonly ScanDescriptor[],
  signal: AbortSignal,
): Promise<{ value: ImagePackages; error?: undefined } | { error: string }> {
  const scan = await scanImagePackages(layersFromStore(blobs, layers, signal));
  signal.throwIfAborted();
  // Only whole-layer failures fail the scan: a record a reader did not understand costs one
  // package, and the list of the rest is still worth having.
  const broken = scan.errors.find((e) => e.startsWith("layer "));
  if (broken !== undefined) return { error: broken };
  return { value: scan };
}

/** The subject of a referrer: the image manifest as stored. */
export interface StoredImage {
  repoUid: string;
  digest: string;
  mediaType: string;
  size: number;
  /** When the image was pushed; the SBOM's creation time, so a rescan writes the same bytes. */
  createTime: string;
}

/**
 * Stores an SPDX document of `packages` as an OCI referrer of `image` in its repository (the
 * SPDX JSON as the one layer, an empty config, artifactType `application/spdx+json`), so the
 * referrers API lists it as it lists pushed ones. The document depends only on the image and
 * the tool version: scanning the image again writes the same manifest, not a second one.
 * Returns the referrer manifest's digest.
 */
export async function storeGeneratedSbom(
  db: Kysely<MetadataSchema>,
  blobs: BlobStore,
  subject: SbomSubject,
  image: StoredImage,
  packages: ImagePackages["packages"],
  toolVersion: string,
): Promise<string> {
  const created = new Date(image.createTime);
  const spdx = () => spdxChunks(subject, packages, toolVersion, created);
  // Claimed until linked, so a collection running meanwhile leaves the bytes (DESIGN §8b).
  const claims: string[] = [];
  try {
    return await storeClaimed(db, blobs, claims, image, spdx, packages.length);
  } finally {
    for (const claim of claims) await releaseClaim(db, claim);
  }
}

async function storeClaimed(
  db: Kysely<MetadataSchema>,
  blobs: BlobStore,
  claims: string[],
  image: StoredImage,
  spdx: () => Iterable<Buffer>,
  packageCount: number,
): Promise<string> {
  const created = new Date(image.createTime);
  // The digest is claimed before the bytes are stored, so the document is written twice (it
  // is deterministic): once into the hash, once into the store, never whole in memory.
  const put = async (chunks: () => Iterable<Buffer>) => {
    const hash = createHash("sha256");
    for (const chunk of chunks()) hash.update(chunk);
    const digest = `sha256:${hash.digest("hex")}`;
    claims.push(await claimContent(db, digest));
    return blobs.put(Readable.from(chunks()), { expectedDigest: digest });
  };
  const spdxBlob = await put(spdx);
  const configBlob = await put(() => [EMPTY_CONFIG.bytes]);
  const manifest = Buffer.from(
    JSON.stringify({
      schemaVersion: 2,
      mediaType: OCI_MANIFEST,
      artifactType: SPDX_MEDIA_TYPE,
      config: {
        mediaType: EMPTY_CONFIG.mediaType,
        digest: configBlob.digest,
        size: configBlob.size,
        data: EMPTY_CONFIG.bytes.toString("base64"),
      },
      layers: [
        {
          mediaType: SPDX_MEDIA_TYPE,
          digest: spdxBlob.digest,
          size: spdxBlob.size,
          annotations: { "org.opencontainers.image.title": "sbom.spdx.json" },
        },
      ],
      subject: { mediaType: image.mediaType, digest: image.digest, size: image.size },
      annotations: { "org.opencontainers.image.created": created.toISOString() },
    }),
  );
  const stored = await put(() => [manifest]);
  const time = new Date().toISOString();
  await db.transaction().execute(async (trx) => {
    for (const blob of [spdxBlob, configBlob]) {
      await touchBlob(trx, blob.digest, blob.size);
      await trx
        .insertInto("repo_blobs")
        .values({
          repo_uid: image.repoUid,
          digest: blob.digest,
          create_time: time,
          last_time: time,
        })
        .onConflict((oc) => oc.columns(["repo_uid", "digest"]).doUpdateSet({ last_time: time }))
        .execute();
    }
    await touchBlob(trx, stored.digest, stored.size);
    await trx
      .insertInto("manifests")
      .values({
        repo_uid: image.repoUid,
        digest: stored.digest,
        media_type: OCI_MANIFEST,
        artifact_type: SPDX_MEDIA_TYPE,
        subject_digest: image.digest,
        size: stored.size,
        create_time: time,
        last_time: time,
        refs_recorded: 0,
      })
      .onConflict((oc) => oc.columns(["repo_uid", "digest"]).doUpdateSet({ last_time: time }))
      .execute();
    await recordManifestRefs(trx, image.repoUid, stored.digest, [
      { digest: spdxBlob.digest, kind: "blob" },
      { digest: configBlob.digest, kind: "blob" },
    ]);
    // Recorded with the manifest, not with the scan's result: a scan that loses its claim still
    // leaves the referrer behind, and the next scan must know it for Lading's own.
    await trx
      .insertInto("image_sboms")
      .values({
        repo_uid: image.repoUid,
        image_digest: image.digest,
        sbom_digest: stored.digest,
        source: "generated",
        format: "spdx-2.3",
        state: "parsed",
        reason: "",
        package_count: packageCount,
        create_time: time,
      })
      .onConflict((oc) => oc.columns(["repo_uid", "image_digest", "sbom_digest"]).doNothing())
      .execute();
  });
  return stored.digest;
}
