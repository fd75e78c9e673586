import type { BlobStore } from "../../store/blobs/index.ts";
import { MAX_SBOM_BYTES } from "../sbom/index.ts";
import type { ScanManifest } from "./image-manifest.ts";
import { sbomLayersOf } from "./pushed-sboms.ts";
import { readJsonCapped } from "./read-blob.ts";

const IN_TOTO = "application/vnd.in-toto+json";
/** Subjects of one attestation followed; BuildKit writes one per platform manifest. */
const MAX_SUBJECTS = 16;

/**
 * The images a BuildKit attestation manifest (`docker buildx build --sbom=true`) holds an SBOM
 * for. BuildKit puts it in the image index beside the images, with no `subject`: its in-toto
 * statement's `subject` names the image. Empty for any other manifest, and for an attestation
 * without an SBOM (provenance only).
 */
export async function attestedImages(blobs: BlobStore, manifest: ScanManifest): Promise<string[]> {
  if (manifest.layers.length === 0 || manifest.layers.some((l) => l.mediaType !== IN_TOTO)) {
    return [];
  }
  const [first] = sbomLayersOf(manifest);
  if (first === undefined || first.layer.size > MAX_SBOM_BYTES) return [];
  const statement = await readJsonCapped(blobs, first.layer.digest, MAX_SBOM_BYTES, "the SBOM");
  if (statement.error !== undefined || !Array.isArray(statement.value.subject)) return [];
  const digests = new Set<string>();
  for (const subject of statement.value.subject.slice(0, MAX_SUBJECTS)) {
    const hex = (subject as { digest?: { sha256?: unknown } })?.digest?.sha256;
    if (typeof hex === "string" && /^[0-9a-f]{64}$/.test(hex)) digests.add(`sha256:${hex}`);
  }
  return [...digests];
}
