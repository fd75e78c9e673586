import type { Kysely } from "kysely";
import {
  type Descriptor,
  imageSize,
  isIndex,
  type ParsedManifest,
  platformArchitecture,
  readJsonBlob,
} from "../../registry/index.ts";
import type { BlobStore } from "../../store/blobs/index.ts";
import type { MetadataSchema } from "../../store/metadata/index.ts";

/** Most platforms of an index compared or stated; the rest are left out (docs/decisions.md). */
export const maxPlatforms = 16;

/** One image manifest of a stored manifest: the manifest itself, or a child of an index. */
export interface PlatformImage {
  /** "amd64", "arm/v7"; "unknown" when the image names none. */
  architecture: string;
  os: string;
  digest: string;
  /** Config plus layers, in bytes; 0 when the child manifest is not stored. */
  size: bigint;
}

/**
 * The image manifests of manifest `digest` of a repo, one per architecture: an index's
 * children in index order (linux first when an architecture repeats for several OSes), or the
 * manifest itself. Undefined when the repo has no such manifest.
 */
export async function platformImages(
  db: Kysely<MetadataSchema>,
  blobs: BlobStore,
  repoUid: string,
  digest: string,
): Promise<PlatformImage[] | undefined> {
  const stored = await db
    .selectFrom("manifests")
    .select(["media_type"])
    .where("repo_uid", "=", repoUid)
    .where("digest", "=", digest)
    .executeTakeFirst();
  if (!stored) return undefined;
  const manifest = (await readJsonBlob<ParsedManifest>(blobs, digest)) ?? {};
  if (!isIndex(stored.media_type, manifest)) return [await single(blobs, digest, manifest)];

  const chosen = new Map<string, Descriptor>();
  for (const child of manifest.manifests ?? []) {
    const arch = platformArchitecture(child.platform);
    if (!arch || typeof child.digest !== "string") continue;
    const seen = chosen.get(arch);
    if (!seen || (seen.platform?.os !== "linux" && child.platform?.os === "linux")) {
      if (!seen && chosen.size >= maxPlatforms) continue;
      chosen.set(arch, child);
    }
  }
  const images: PlatformImage[] = [];
  for (const [architecture, child] of chosen) {
    const childManifest = await readJsonBlob<ParsedManifest>(blobs, child.digest);
    images.push({
      architecture,
      os: child.platform?.os ?? "",
      digest: child.digest,
      size: childManifest ? imageSize(childManifest) : 0n,
    });
  }
  return images;
}

async function single(
  blobs: BlobStore,
  digest: string,
  manifest: ParsedManifest,
): Promise<PlatformImage> {
  const config = manifest.config?.digest
    ? await readJsonBlob<Descriptor["platform"]>(blobs, manifest.config.digest)
    : undefined;
  return {
    architecture: platformArchitecture(config) ?? "unknown",
    os: config?.os ?? "",
    digest,
    size: imageSize(manifest),
  };
}
