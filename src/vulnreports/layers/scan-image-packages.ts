import { isGoBuildInfoWindow, parseGoBuildInfo } from "./go-buildinfo.ts";
import { GoBuildInfoSniffer } from "./go-buildinfo-sniffer.ts";
import type { LayerPackage } from "./layer-package.ts";
import { type LayerInput, type ScanLimits, type SkippedFile, scanLayers } from "./layer-walker.ts";
import { type Distro, distroOf } from "./os-release.ts";
import { isPackageScanPath, type PackageDatabaseReader, readerFor } from "./package-databases.ts";

/** Executables are kept only as their Go build info window, which this reads. */
const GO_BINARY: PackageDatabaseReader = {
  matches: () => false,
  parse: (bytes, path) => parseGoBuildInfo(bytes, path),
};

/** The packages installed in an image, as its layers leave them. */
export interface ImagePackages {
  /** One per purl and location (the same package at two paths is two entries), by purl. */
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
 * record: apk, dpkg, rpm, Python dist-info and egg-info, npm manifests, Java archives, and the Go
 * build info of executables. For images pushed without
 * an SBOM.
 */
export async function scanImagePackages(
  layers: AsyncIterable<LayerInput>,
  options?: ScanLimits,
): Promise<ImagePackages> {
  const scan = await scanLayers(layers, isPackageScanPath, options, () => new GoBuildInfoSniffer());
  const distro = distroOf(scan.files);
  const errors = [...scan.errors];
  const found = new Map<string, LayerPackage>();
  // Paths in order, so that the list is the same on every run; one file naming a package twice
  // (a status.d duplicate) still lists it once.
  for (const path of [...scan.files.keys()].sort()) {
    const bytes = scan.files.get(path) ?? Buffer.alloc(0);
    // A path reader wins: an executable at a database's path was read whole, not sniffed.
    const reader = readerFor(path) ?? (isGoBuildInfoWindow(bytes) ? GO_BINARY : undefined);
    if (reader === undefined) continue;
    const read = reader.parse(bytes, path, distro);
    errors.push(...read.errors);
    for (const pkg of read.packages) {
      const key = `${pkg.purl}\n${pkg.source}`;
      if (!found.has(key)) found.set(key, pkg);
    }
  }
  const packages = [...found.values()].sort((a, b) =>
    a.purl < b.purl ? -1 : a.purl > b.purl ? 1 : a.source < b.source ? -1 : 1,
  );
  return { packages, skipped: scan.skipped, distro, errors };
}
