import { layerCompression } from "../layers/layer-stream.ts";

/** A descriptor as the scanner reads it. */
export interface ScanDescriptor {
  mediaType: string;
  digest: string;
  size: number;
  annotations?: Record<string, string>;
}

/** An image manifest (or an artifact manifest) as the scanner reads it. */
export interface ScanManifest {
  isIndex: boolean;
  artifactType: string;
  config: ScanDescriptor | undefined;
  layers: ScanDescriptor[];
  annotations: Record<string, string>;
}

const INDEX_TYPES = new Set([
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
]);

/** Config media types of runnable images (OCI and Docker schema 2). */
const IMAGE_CONFIG_TYPES = new Set([
  "application/vnd.oci.image.config.v1+json",
  "application/vnd.docker.container.image.v1+json",
]);

/**
 * Reads the fields the scanner needs from a stored manifest. The registry checked it at push
 * time, so this is lenient: a malformed descriptor is dropped rather than refused.
 */
export function readScanManifest(json: Record<string, unknown>, mediaType: string): ScanManifest {
  const declared = typeof json.mediaType === "string" ? json.mediaType : mediaType;
  const isIndex = INDEX_TYPES.has(declared) || Array.isArray(json.manifests);
  const config = descriptor(json.config);
  const layers = Array.isArray(json.layers)
    ? json.layers.map(descriptor).filter((d) => d !== undefined)
    : [];
  const artifactType =
    typeof json.artifactType === "string" ? json.artifactType : (config?.mediaType ?? "");
  return { isIndex, artifactType, config, layers, annotations: stringMap(json.annotations) };
}

/**
 * Why a manifest is not an image to scan, or undefined when it is one: an image config and
 * only filesystem layers. Attestation manifests in a buildx index have an image config but
 * in-toto layers, so the layers decide.
 */
export function notAnImage(manifest: ScanManifest): string | undefined {
  if (manifest.isIndex) return "an index is scanned through its entries";
  if (!manifest.config || !IMAGE_CONFIG_TYPES.has(manifest.config.mediaType.toLowerCase())) {
    return `config media type ${manifest.config?.mediaType ?? "(none)"} is not an image config`;
  }
  const odd = manifest.layers.find((l) => layerCompression(l.mediaType) === undefined);
  if (odd !== undefined) return `layer media type ${odd.mediaType} is not a filesystem layer`;
  return undefined;
}

function descriptor(value: unknown): ScanDescriptor | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const d = value as Record<string, unknown>;
  if (typeof d.digest !== "string" || typeof d.mediaType !== "string") return undefined;
  const size = typeof d.size === "number" ? d.size : 0;
  const annotations = d.annotations === undefined ? undefined : stringMap(d.annotations);
  return {
    mediaType: d.mediaType,
    digest: d.digest,
    size,
    ...(annotations ? { annotations } : {}),
  };
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof value === "object" && value !== null) {
    for (const [k, v] of Object.entries(value)) {
      if (typeof v === "string") out[k] = v;
    }
  }
  return out;
}
