import { failedPrecondition, notFound } from "../../errors/index.ts";
import { ImageInsightsService } from "../../gen/lading/registry/v2/image_insights_pb.js";
import { type RegistryContext, registryDomain } from "../../registry/index.ts";
import { type BoundService, bindService } from "../../rpc/index.ts";
import type { ReposTable } from "../../store/metadata/index.ts";
import {
  diffPlatforms,
  loadImageScanData,
  type PlatformImage,
  platformImages,
  type ScannedImage,
} from "../diff/index.ts";
import { buildOpenVex } from "../vex/index.ts";
import { loadReadableRepo } from "./image-access.ts";
import { imagePackages } from "./image-packages.ts";
import { packageAdvisories } from "./package-advisories.ts";

/** What the insights service needs besides the registry context. */
export interface ImageInsightsOptions {
  /** The registry URL, whose host names images in VEX product purls; known once it listens. */
  registryUrl: () => string;
}

/**
 * The ImageInsightsService implementation: diffs of two manifests, the package list and the
 * OpenVEX document of one, read from the scan data (image_scans, image_packages, vuln_reports) and advisories.
 */
export function createImageInsightsService(
  ctx: RegistryContext,
  options: ImageInsightsOptions,
): BoundService {
  const { db, blobs } = ctx;

  async function scanned(repo: ReposTable, digest: string): Promise<ScannedImage[]> {
    const images = await platformImages(db, blobs, repo.uid, digest);
    if (!images) throw notFound(registryDomain, "manifest", `${repo.uid}@${digest}`);
    return Promise.all(
      images.map(async (image: PlatformImage) => ({
        ...image,
        scan: await loadImageScanData(db, repo.uid, image.digest),
      })),
    );
  }

  return bindService(ImageInsightsService, {
    async diffImages(req, call) {
      const repo = await loadReadableRepo(ctx, call, req.repo, { from: req.from, to: req.to });
      const from = await scanned(repo, req.from);
      const to = await scanned(repo, req.to);
      return {
        repoUid: repo.uid,
        from: req.from,
        to: req.to,
        architectures: diffPlatforms(from, to),
      };
    },

    async listImagePackages(req, call) {
      const repo = await loadReadableRepo(ctx, call, req.repo, { digest: req.digest });
      return imagePackages(repo.uid, req.digest, await scanned(repo, req.digest));
    },

    async getImageVex(req, call) {
      const repo = await loadReadableRepo(ctx, call, req.repo, { digest: req.digest });
      const images = await scanned(repo, req.digest);
      const platforms = images.filter((p) => p.scan.state === "done");
      if (platforms.length === 0) {
        throw failedPrecondition(registryDomain, "the image has no finished scan yet", [
          { type: "SCAN", subject: `${repo.uid}@${req.digest}`, description: "not scanned yet" },
        ]);
      }
      const names = platforms.flatMap((p) =>
        p.scan.packages.flatMap((pkg) => [pkg.name, pkg.origin]),
      );
      const org = await db
        .selectFrom("groups")
        .select("name")
        .where("uid", "=", repo.root_uid)
        .executeTakeFirstOrThrow();
      const host = new URL(options.registryUrl()).host;
      const document = buildOpenVex({
        repoUid: repo.uid,
        digest: req.digest,
        // An image manifest is its own only platform; an index's platforms are its children.
        isIndex: images.length !== 1 || images[0].digest !== req.digest,
        imageName: repo.name.slice(repo.name.lastIndexOf("/") + 1),
        repositoryUrl: `${host}/${org.name}/${repo.name}`,
        platforms,
        advisories: await packageAdvisories(db, call, repo.root_uid, names),
      });
      return document;
    },
  });
}
