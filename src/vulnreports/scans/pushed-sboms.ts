import type { Kysely } from "kysely";
import type { BlobStore } from "../../store/blobs/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";
import { MAX_SBOM_BYTES, parseSbom, type SbomDocument, sbomKindOf } from "../sbom/index.ts";
import { readScanManifest, type ScanDescriptor, type ScanManifest } from "./image-manifest.ts";
import { readBlobCapped, readJsonCapped } from "./read-blob.ts";
import { cosignTagsOf } from "./scan-queue.ts";

/** Largest referrer manifest read (the registry's manifest limit). */
const MAX_MANIFEST_BYTES = 4 * 1024 * 1024;
/** Layers of one attestation manifest tried; cosign adds one per attestation. */
const MAX_LAYERS_TRIED = 16;
/**
 * Referrers looked at per image, newest first, and SBOMs among them read: anyone who may push
 * may add referrers without end, and each SBOM may be 64 MiB, so a scan's work is bounded.
 */
const MAX_REFERRERS = 64;
const MAX_SBOMS = 16;

/** An SBOM referrer of an image, read. */
export interface ReadSbom {
  /** The referrer manifest's digest. */
  digest: string;
  /** "spdx-2.3", …, or the kind the media type names when it could not be read. */
  format: string;
  document?: SbomDocument;
  error?: string;
}

/** A layer that may hold an SBOM, and the media type that names its kind. */
export interface SbomLayer {
  layer: ScanDescriptor;
  mediaType: string;
}

// The annotations cosign (`predicateType`) and BuildKit (`in-toto.io/predicate-type`) put on
// each attestation layer: a layer that announces provenance is not worth reading.
const PREDICATE_KEYS = ["predicateType", "in-toto.io/predicate-type"];
const SBOM_PREDICATE = /^https:\/\/(spdx\.dev\/Document|cyclonedx\.org\/bom)(\/v[\d.]+)?$/;

/**
 * The layers of a manifest that may hold its SBOM, best first, or none when it is not an SBOM
 * artifact (a signature, a VEX document…). Layers whose own media type names an SBOM kind
 * come first, those announcing an SPDX or CycloneDX predicate before the rest, and those
 * announcing another predicate not at all; when only the artifactType or config names an SBOM
 * kind, the first layer is read under that name (oras writes the type on the manifest only).
 */
export function sbomLayersOf(manifest: ScanManifest): SbomLayer[] {
  const predicate = (l: ScanDescriptor) =>
    PREDICATE_KEYS.map((k) => l.annotations?.[k]).find((v) => v !== undefined);
  const named = manifest.layers.filter(
    (l) => sbomKindOf(l.mediaType) !== undefined && !notSbom(predicate(l)),
  );
  if (named.length > 0) {
    const announced = named.filter((l) => predicate(l) !== undefined);
    const rest = named.filter((l) => predicate(l) === undefined);
    return [...announced, ...rest].map((l) => ({ layer: l, mediaType: l.mediaType }));
  }
  const outer = [manifest.artifactType, manifest.config?.mediaType ?? ""].find(
    (t) => sbomKindOf(t) !== undefined,
  );
  if (outer === undefined || manifest.layers.length === 0) return [];
  return [{ layer: manifest.layers[0], mediaType: outer }];
}

function notSbom(predicate: string | undefined): boolean {
  return predicate !== undefined && !SBOM_PREDICATE.test(predicate);
}

/**
 * Reads the SBOMs pushed for image `digest` in `repoUid` (the 16 newest among its 64 newest
 * candidates), returned oldest first: its referrers, what
 * cosign's tag scheme attaches (`sha256-<hex>.att`, `.sbom`), and the BuildKit attestations
 * already recorded for it; `skip` are the ones Lading generated. Each layer is read through a 64 MiB cap and parsed; failures come back with their
 * reason, never thrown.
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
    .select(["digest", "media_type", "create_time"])
    .where("repo_uid", "=", repoUid)
    .where((eb) =>
      eb.or([
        eb("subject_digest", "=", digest),
        eb(
          "digest",
          "in",
          eb
            .selectFrom("tags")
            .select("tags.digest")
            .where("parent_uid", "=", repoUid)
            .where("name", "in", cosignTagsOf(digest)),
        ),
        // BuildKit attestations, which name their image only inside (see attestedImages).
        eb(
          "digest",
          "in",
          eb
            .selectFrom("image_sboms")
            .select("image_sboms.sbom_digest")
            .where("image_sboms.repo_uid", "=", repoUid)
            .where("image_sboms.image_digest", "=", digest)
            .where("image_sboms.source", "=", "pushed"),
        ),
      ]),
    )
    .orderBy("create_time", "desc")
    .orderBy("digest", "desc")
    .limit(MAX_REFERRERS + skip.size)
    .execute();
  const found: ReadSbom[] = [];
  for (const referrer of referrers) {
    if (found.length === MAX_SBOMS) break;
    if (skip.has(referrer.digest)) continue;
    const json = await readJsonCapped(blobs, referrer.digest, MAX_MANIFEST_BYTES, "manifest");
    if (json.error !== undefined) continue;
    const layers = sbomLayersOf(readScanManifest(json.value, referrer.media_type));
    if (layers.length === 0) continue;
    let first: Omit<ReadSbom, "digest"> | undefined;
    for (const place of layers.slice(0, MAX_LAYERS_TRIED)) {
      const read = await readSbomLayer(blobs, place);
      first ??= read;
      if (read.document) {
        first = read;
        break;
      }
    }
    found.push({ digest: referrer.digest, ...(first as Omit<ReadSbom, "digest">) });
  }
  return found.reverse();
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
