import { invalidArgument, notFound } from "../errors/index.ts";
import { ImagesService } from "../gen/lading/registry/v2/images_pb.js";
import { type BoundService, bindService, Violations } from "../rpc/index.ts";
import { isDigest } from "../store/blobs/index.ts";
import {
  type Descriptor,
  imageLayers,
  imageSize,
  isIndex,
  type ParsedManifest,
  platformArchitecture,
  readJsonBlob,
} from "./image-manifests.ts";
import { type RegistryContext, registryDomain } from "./registry-context.ts";
import { repoResource } from "./repos-service.ts";

/** The architecture size is computed for when the request names none and the image has it. */
export const defaultArchitecture = "amd64";

/**
 * The ImagesService implementation: architectures, size and layers of a stored manifest, read
 * from its bytes in the blob store (DESIGN §6).
 */
export function createImagesService(ctx: RegistryContext): BoundService {
  const { db, blobs } = ctx;

  async function readManifest(digest: string): Promise<ParsedManifest> {
    const manifest = await readJsonBlob<ParsedManifest>(blobs, digest);
    if (!manifest) throw notFound(registryDomain, "manifest", digest);
    return manifest;
  }

  return bindService(ImagesService, {
    async getImage(req, call) {
      const v = new Violations().uid("repo_uid", req.repoUid);
      if (!isDigest(req.digest))
        v.add("digest", "must be sha256:<64 hex> or sha512:<128 hex> in lowercase");
      if (!v.empty) throw invalidArgument(registryDomain, v.list);
      const repo = await repoResource.load(ctx, call, req.repoUid, {
        field: "repo_uid",
        act: "manifest.list",
      });
      await ctx.termsGate?.require(repo.parent_uid, registryDomain);
      const stored = await db
        .selectFrom("manifests")
        .select(["media_type"])
        .where("repo_uid", "=", repo.uid)
        .where("digest", "=", req.digest)
        .executeTakeFirst();
      if (!stored) throw notFound(registryDomain, "manifest", `${repo.uid}@${req.digest}`);
      const manifest = await readManifest(req.digest);
      const image = { repoUid: repo.uid, digest: req.digest, mediaType: stored.media_type };

      if (!isIndex(stored.media_type, manifest)) {
        const config = manifest.config?.digest
          ? await readJsonBlob<{ architecture?: string; os?: string; variant?: string }>(
              blobs,
              manifest.config.digest,
            )
          : undefined;
        const arch = platformArchitecture(config);
        const architectures = arch ? [arch] : [];
        if (req.architecture && req.architecture !== arch) throw noSuchArchitecture(architectures);
        return {
          ...image,
          architectures,
          architecture: arch ?? "",
          size: imageSize(manifest),
          layers: imageLayers(manifest),
        };
      }

      const platforms: [string, Descriptor][] = [];
      for (const child of manifest.manifests ?? []) {
        const arch = platformArchitecture(child.platform);
        if (arch) platforms.push([arch, child]);
      }
      const architectures = [...new Set(platforms.map(([arch]) => arch))];
      const wanted =
        req.architecture ||
        (architectures.includes(defaultArchitecture) ? defaultArchitecture : architectures[0]);
      const candidates = platforms.filter(([arch]) => arch === wanted);
      const chosen = candidates.find(([, d]) => d.platform?.os === "linux") ?? candidates[0];
      if (!chosen) {
        if (req.architecture) throw noSuchArchitecture(architectures);
        return { ...image, architectures, architecture: "", size: 0n };
      }
      const child = await readManifest(chosen[1].digest);
      return {
        ...image,
        architectures,
        architecture: wanted,
        size: imageSize(child),
        layers: imageLayers(child),
      };
    },
  });
}

function noSuchArchitecture(architectures: string[]): Error {
  return invalidArgument(registryDomain, [
    {
      field: "architecture",
      description:
        architectures.length > 0
          ? `must be one of the image's architectures: ${architectures.join(", ")}`
          : "the image names no architecture",
    },
  ]);
}
