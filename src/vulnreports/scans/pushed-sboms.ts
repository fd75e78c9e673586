import type { Kysely } from "kysely";
import type { BlobStore } from "../../store/blobs/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { MAX_SBOM_BYTES, parseSbom, type SbomDocument, sbomKindOf } from "../sbom/index.ts";
import { readScanManifest, type ScanDescriptor } from "./image-manifest.ts";
import { readBlobCapped, readJsonCapped } from "./read-blob.ts";

/** Largest referrer manifest read (the registry's manifest limit). */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;

/** An SBOM referrer of an image, read. */
export interface ReadSbom {
  /** The referrer manifest's digest. */
  digest: string;
  /** "spdx-2.3", …, or the kind the media type names when it could not be read. */
  format: string;
  document?: SbomDocument;
  error?: string;
}

/** Where an SBOM referrer keeps its SBOM, and the media type that names its kind. */
export interface SbomLayer {
  layer: ScanDescriptor;
  mediaType: string;
}

/**
 * The layer holding the SBOM of a referrer manifest, or undefined when it is not an SBOM
 * referrer (a signature, a VEX document…). A layer whose own media type names an SBOM kind is
 * preferred; otherwise, when the artifactType or config names one, the first layer is read
 * under that name (oras and cosign both write the type on the manifest only at times).
 */
export function sbomLayerOf(manifest: ReturnType<typeof readScanManifest>): SbomLayer | undefined {
  const named = manifest.layers.find((l) => sbomKindOf(l.mediaType) !== undefined);
  if (named !== undefined) return { layer: named, mediaType: named.mediaType };
  const outer = [manifest.artifactType, manifest.config?.mediaType ?? ""].find(
    (t) => sbomKindOf(t) !== undefined,
  );
  if (outer === undefined || manifest.layers.length === 0) return undefined;
  return { layer: manifest.layers[0], mediaType: outer };
}

/**
 * Reads every SBOM referrer of image `digest` in `repoUid`, oldest first, except `skip` (the
 * ones Lading generated). Each one is read through a 64 MiB cap and parsed; failures are
 * returned with their reason, never thrown.
 */
export async function readPushedSboms(
  db: Kysely<MetadataSchema>,
  blobs: BlobStore,
  repoUid: string,
  digest: string,
  skip: ReadonlySet<string>,
): Promise<ReadSbom[]> {
  const referrers = await db
    .selectFrom("manifests")
    .select(["digest", "media_type"])
    .where("repo_uid", "=", repoUid)
    .where("subject_digest", "=", digest)
    .orderBy("create_time")
    .orderBy("digest")
    .execute();
  const found: ReadSbom[] = [];
  for (const referrer of referrers) {
    if (skip.has(referrer.digest)) continue;
    const json = await readJsonCapped(blobs, referrer.digest, MAX_MANIFEST_BYTES, "manifest");
    if (json.error !== undefined) continue;
    const place = sbomLayerOf(readScanManifest(json.value, referrer.media_type));
    if (place === undefined) continue;
    found.push({ digest: referrer.digest, ...(await readSbomLayer(blobs, place)) });
  }
  return found;
}

async function readSbomLayer(
  blobs: BlobStore,
  { layer, mediaType }: SbomLayer,
): Promise<Omit<ReadSbom, "digest">> {
  const kind = sbomKindOf(mediaType) ?? "sbom";
  if (layer.size > MAX_SBOM_BYTES) {
    return {
      format: kind,
      error: `the SBOM is ${layer.size} bytes, more than the ${MAX_SBOM_BYTES} (64 MiB) allowed`,
    };
  }
  const bytes = await readBlobCapped(blobs, layer.digest, MAX_SBOM_BYTES, "the SBOM");
  if (bytes.error !== undefined) return { format: kind, error: bytes.error };
  const parsed = parseSbom(bytes.value, mediaType);
  if (parsed.value === undefined) return { format: kind, error: parsed.error ?? "unreadable" };
  return { format: parsed.value.format, document: parsed.value };
}
