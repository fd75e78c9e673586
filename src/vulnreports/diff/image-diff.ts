import type { ImageScanData } from "./image-scan-data.ts";
import { diffPackages, type PackageChange } from "./package-diff.ts";
import type { PlatformImage } from "./platform-images.ts";
import {
  diffVulnerabilities,
  emptyCounts,
  type SeverityCounts,
  type VulnerabilityChange,
} from "./vulnerability-diff.ts";

/** One architecture's image in one of the two manifests. */
export interface ImageSide {
  /** "" when the manifest has no image of this architecture. */
  digest: string;
  size: bigint;
  /** The scan state, or "absent". */
  scanState: string;
  reason: string;
  /** The SBOM manifest in use and its source ("pushed", "generated"); "" before a scan. */
  sbomDigest: string;
  sbomSource: string;
}

/** The comparison of the images of one architecture. */
export interface ArchitectureDiff {
  architecture: string;
  from: ImageSide;
  to: ImageSide;
  /** Both sides scanned: the lists are meaningful. */
  complete: boolean;
  sizeChange: bigint;
  added: PackageChange[];
  removed: PackageChange[];
  changed: PackageChange[];
  fixed: VulnerabilityChange[];
  introduced: VulnerabilityChange[];
  countsBefore: SeverityCounts;
  countsAfter: SeverityCounts;
}

/** A platform image with its scan data. */
export type ScannedImage = PlatformImage & { scan: ImageScanData };

/**
 * Pairs the images of two manifests by architecture (those of `from` first, in manifest order)
 * and compares each pair. A pair with an unfinished or failed scan on either side, or with a
 * side missing, is listed with its states and no lists: an empty diff would claim "no change".
 */
export function diffPlatforms(from: ScannedImage[], to: ScannedImage[]): ArchitectureDiff[] {
  const architectures = [...new Set([...from, ...to].map((i) => i.architecture))];
  return architectures.map((architecture) => {
    const a = from.find((i) => i.architecture === architecture);
    const b = to.find((i) => i.architecture === architecture);
    const complete = a?.scan.state === "done" && b?.scan.state === "done";
    const packages = complete
      ? diffPackages(a.scan.packages, b.scan.packages)
      : { added: [], removed: [], changed: [] };
    const vulnerabilities = complete
      ? diffVulnerabilities(a.scan.matches, b.scan.matches)
      : { fixed: [], introduced: [], countsBefore: emptyCounts(), countsAfter: emptyCounts() };
    return {
      architecture,
      from: side(a),
      to: side(b),
      complete,
      sizeChange: a && b ? b.size - a.size : 0n,
      ...packages,
      ...vulnerabilities,
    };
  });
}

function side(image: ScannedImage | undefined): ImageSide {
  if (!image) {
    return {
      digest: "",
      size: 0n,
      scanState: "absent",
      reason: "",
      sbomDigest: "",
      sbomSource: "",
    };
  }
  return {
    digest: image.digest,
    size: image.size,
    scanState: image.scan.state,
    reason: image.scan.reason,
    sbomDigest: image.scan.sbomDigest,
    sbomSource: image.scan.sbomSource,
  };
}
