import { create } from "@bufbuild/protobuf";
import {
  ImagePackageSchema,
  type ImagePackages,
  ImagePackagesSchema,
  PlatformPackagesSchema,
} from "../../gen/lading/registry/v2/image_insights_pb.js";
import type { ScannedImage } from "../diff/index.ts";

/** Most packages listed per architecture; the count says how many there are in all. */
export const maxListedPackages = 5000;

/**
 * The package list of a manifest's platform images, as ListImagePackages answers it: each
 * architecture's packages sorted by name, then version, then purl, cut at
 * {@link maxListedPackages}; empty until its scan is done.
 */
export function imagePackages(
  repoUid: string,
  digest: string,
  images: ScannedImage[],
): ImagePackages {
  return create(ImagePackagesSchema, {
    repoUid,
    digest,
    architectures: images.map((image) => {
      const sorted = [...image.scan.packages].sort(
        (a, b) =>
          a.name.localeCompare(b.name) ||
          a.version.localeCompare(b.version) ||
          a.purl.localeCompare(b.purl),
      );
      return create(PlatformPackagesSchema, {
        architecture: image.architecture,
        image: {
          digest: image.digest,
          size: image.size,
          scanState: image.scan.state,
          reason: image.scan.reason,
          sbomDigest: image.scan.sbomDigest,
          sbomSource: image.scan.sbomSource,
        },
        totalCount: sorted.length,
        packages: sorted.slice(0, maxListedPackages).map((p) =>
          create(ImagePackageSchema, {
            name: p.name,
            version: p.version,
            ecosystem: p.ecosystem,
            purl: p.purl,
          }),
        ),
      });
    }),
  });
}
