import type { BlobStore } from "../store/blobs/index.ts";

/** Media types of manifests that list other manifests (OCI index, Docker manifest list). */
export const indexMediaTypes: ReadonlySet<string> = new Set([
  "application/vnd.oci.image.index.v1+json",
  "application/vnd.docker.distribution.manifest.list.v2+json",
]);

/** Largest manifest or config read into memory (the registry's manifest limit). */
export const maxManifestBytes = 4 * 1024 * 1024;

/** A descriptor as manifests carry them. */
export interface Descriptor {
  mediaType?: string;
  digest: string;
  size: number;
  platform?: { architecture?: string; os?: string; variant?: string };
}

/** The parts of an image manifest or an index that Images reads. */
export interface ParsedManifest {
  mediaType?: string;
  config?: Descriptor;
  layers?: Descriptor[];
  manifests?: Descriptor[];
}

/** True when `manifest` (stored with `mediaType`) is an index of other manifests. */
export function isIndex(mediaType: string, manifest: ParsedManifest): boolean {
  if (indexMediaTypes.has(mediaType)) return true;
  return mediaType === "" && Array.isArray(manifest.manifests);
}

/** The architecture name of a platform: `arm/v7` when a variant is given. */
export function platformArchitecture(platform: Descriptor["platform"]): string | undefined {
  const arch = platform?.architecture;
  if (!arch || arch === "unknown" || platform?.os === "unknown") return undefined;
  return platform?.variant ? `${arch}/${platform.variant}` : arch;
}

/** Bytes of an image: its config and every layer. */
export function imageSize(manifest: ParsedManifest): bigint {
  let size = BigInt(manifest.config?.size ?? 0);
  for (const layer of manifest.layers ?? []) size += BigInt(layer.size ?? 0);
  return size;
}

/** The layers of an image manifest as the API lists them, in manifest order. */
export function imageLayers(
  manifest: ParsedManifest,
): { digest: string; mediaType: string; size: bigint }[] {
  return (manifest.layers ?? []).map((l) => ({
    digest: String(l.digest ?? ""),
    mediaType: String(l.mediaType ?? ""),
    size: BigInt(Number.isSafeInteger(l.size) ? l.size : 0),
  }));
}

/** Reads and parses a JSON blob of at most 4 MiB; undefined when missing or not JSON. */
export async function readJsonBlob<T>(blobs: BlobStore, digest: string): Promise<T | undefined> {
  const stat = await blobs.stat(digest);
  if (!stat || stat.size > maxManifestBytes) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of await blobs.get(digest)) chunks.push(Buffer.from(chunk));
  try {
    const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    return value && typeof value === "object" ? (value as T) : undefined;
  } catch {
    return undefined;
  }
}
