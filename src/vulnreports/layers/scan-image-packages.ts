import { parseCargoAuditable } from "./cargo-auditable.ts";
import { CargoAuditableSniffer, isCargoAuditableWindow } from "./cargo-auditable-sniffer.ts";
import { isGoBuildInfoWindow, parseGoBuildInfo } from "./go-buildinfo.ts";
import { GoBuildInfoSniffer } from "./go-buildinfo-sniffer.ts";
import type { LayerPackage } from "./layer-package.ts";
import {
  type ExecutableSniffer,
  type LayerInput,
  type ScanLimits,
  type SkippedFile,
  scanLayers,
} from "./layer-walker.ts";
import { type Distro, distroOf } from "./os-release.ts";
import { isPackageScanPath, type PackageDatabaseReader, readerFor } from "./package-databases.ts";

/** Executables are kept only as their Go build info window, which this reads. */
const GO_BINARY: PackageDatabaseReader = {
  matches: () => false,
  parse: (bytes, path) => parseGoBuildInfo(bytes, path),
};

/** Or as the window of cargo-auditable data of a Rust binary. */
const RUST_BINARY: PackageDatabaseReader = {
  matches: () => false,
  parse: (bytes, path) => parseCargoAuditable(bytes, path),
};

/** The reader of a sniffed window, by what it starts with. */
function binaryReader(bytes: Buffer): PackageDatabaseReader | undefined {
  if (isGoBuildInfoWindow(bytes)) return GO_BINARY;
  if (isCargoAuditableWindow(bytes)) return RUST_BINARY;
  return undefined;
}

/**
 * Streams an executable through the Go and the cargo-auditable sniffers at once. One binary
 * keeps one window: Go build info when it has some, else cargo-auditable data (a binary with
 * both is not something either toolchain writes).
 */
function binarySniffer(): ExecutableSniffer {
  const go = new GoBuildInfoSniffer();
  const sniffers: ExecutableSniffer[] = [go, new CargoAuditableSniffer()];
  // Once Go build info is found its window wins: the cargo sniffer need not look further.
  const live = () => (go.found ? [go] : sniffers);
  return {
    push(chunk) {
      for (const sniffer of live()) if (sniffer.wantsMore) sniffer.push(chunk);
    },
    get wantsMore() {
      return live().some((sniffer) => sniffer.wantsMore);
    },
    result() {
      for (const sniffer of sniffers) {
        const kept = sniffer.result();
        if (kept !== undefined) return kept;
      }
      return undefined;
    },
  };
}

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
 * build info or cargo-auditable data of executables. For images pushed without
 * an SBOM.
 */
export async function scanImagePackages(
  layers: AsyncIterable<LayerInput>,
  options?: ScanLimits,
): Promise<ImagePackages> {
  const scan = await scanLayers(layers, isPackageScanPath, options, binarySniffer);
  const distro = distroOf(scan.files);
  const errors = [...scan.errors];
  const found = new Map<string, LayerPackage>();
  // Paths in order, so that the list is the same on every run; one file naming a package twice
  // (a status.d duplicate) still lists it once.
  for (const path of [...scan.files.keys()].sort()) {
    const bytes = scan.files.get(path) ?? Buffer.alloc(0);
    // A path reader wins: an executable at a database's path was read whole, not sniffed.
    const reader = readerFor(path) ?? binaryReader(bytes);
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
