import type { LayerPackage } from "./layer-package.ts";
import { type LayerInput, type ScanLimits, type SkippedFile, scanLayers } from "./layer-walker.ts";
import { type Distro, distroOf } from "./os-release.ts";
import { isPackageScanPath, readerFor } from "./package-databases.ts";

/** The packages installed in an image, as its layers leave them. */
export interface ImagePackages {
  /** One per purl, sorted by purl. */
  packages: LayerPackage[];
  /** Package databases (or os-release) present but not read, with why. */
  skipped: SkippedFile[];
  /** From os-release; undefined when the image has none (scratch, distroless static). */
  distro: Distro | undefined;
  /** Layers not read in full and database records not understood: the list may be short. */
  errors: string[];
}

/**
 * Streams an image's layers (base first) and lists the packages its package databases
 * record: apk, dpkg, Python dist-info and node_modules. For images pushed without an SBOM.
 */
export async function scanImagePackages(
  layers: AsyncIterable<LayerInput>,
  options?: ScanLimits,
): Promise<ImagePackages> {
  const scan = await scanLayers(layers, isPackageScanPath, options);
  const distro = distroOf(scan.files);
  const errors = [...scan.errors];
  const byPurl = new Map<string, LayerPackage>();
  // Paths in order, so that when two files record one purl the same one wins on every run.
  for (const path of [...scan.files.keys()].sort()) {
    const reader = readerFor(path);
    if (reader === undefined) continue;
    const read = reader.parse(scan.files.get(path)?.toString("utf8") ?? "", path, distro?.id);
    errors.push(...read.errors);
    for (const found of read.packages) {
      if (!byPurl.has(found.purl)) byPurl.set(found.purl, found);
    }
  }
  const packages = [...byPurl.values()].sort((a, b) =>
    a.purl < b.purl ? -1 : a.purl > b.purl ? 1 : 0,
  );
  return { packages, skipped: scan.skipped, distro, errors };
}
