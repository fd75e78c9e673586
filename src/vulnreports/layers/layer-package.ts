/** One installed package found in an image's files. */
export interface LayerPackage {
  /** The name as the package manager records it (the binary package for distributions). */
  name: string;
  /** The version exactly as recorded, epoch and revision included. */
  version: string;
  /** The package URL (purl-spec), name and version percent-encoded. */
  purl: string;
  /** The OSV ecosystem name (`Alpine`, `Debian`, `PyPI`, `npm`, …). */
  ecosystem: string;
  /** The declared licence, or undefined when the database records none. */
  licence: string | undefined;
  /**
   * The source package it was built from (apk `o:`, dpkg `Source:`), when recorded:
   * distribution advisories are keyed by source package, not by binary.
   */
  origin?: string;
  /** The path of the file it was read from, inside the image. */
  source: string;
}

/** What one package database file yields; errors name the file and the record. */
export interface PackageDatabase {
  packages: LayerPackage[];
  errors: string[];
}

/**
 * One purl component, percent-encoded. encodeURIComponent leaves only unreserved characters
 * and `!'()*` bare, which purl-spec permits, and encodes `:`, `+` and `@` as purls need.
 */
export function purlPart(text: string): string {
  return encodeURIComponent(text);
}

/** `?arch=<arch>` or nothing when the architecture is unknown. */
export function archQualifier(arch: string | undefined): string {
  return arch ? `?arch=${purlPart(arch)}` : "";
}
