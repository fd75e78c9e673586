import { PackageURL } from "packageurl-js";
import type { Distro } from "./os-release.ts";

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

/** A package URL's parts; empty qualifiers are left out. */
export interface PurlParts {
  type: string;
  namespace?: string;
  name: string;
  version: string;
  qualifiers?: Record<string, string | undefined>;
}

/**
 * The package URL in the canonical form purl-spec gives each type (names normalised and
 * encoded by the spec's own library), so a report's purls compare equal to other scanners'.
 */
export function formatPurl(
  parts: PurlParts,
): { value: string; error?: undefined } | { error: string } {
  const qualifiers: Record<string, string> = {};
  for (const [key, value] of Object.entries(parts.qualifiers ?? {})) {
    if (value) qualifiers[key] = value;
  }
  try {
    const purl = new PackageURL(
      parts.type,
      parts.namespace || undefined,
      parts.name,
      parts.version,
      Object.keys(qualifiers).length > 0 ? qualifiers : undefined,
      undefined,
    );
    return { value: purl.toString() };
  } catch (error) {
    return {
      error: `no package URL for ${parts.name}@${parts.version}: ${(error as Error).message}`,
    };
  }
}

/**
 * `debian-12`, `ubuntu-24.04`, `alpine-3.20.3`: the purl `distro` qualifier of a package of
 * `family` (the distributions whose package manager recorded it), from the image's os-release.
 * A deb database in an apk image (or no os-release at all) says nothing about its distro.
 */
export function distroQualifier(
  distro: Distro | undefined,
  family: readonly string[],
): string | undefined {
  if (distro === undefined) return undefined;
  if (!family.includes(distro.id) && !distro.idLike.some((id) => family.includes(id))) {
    return undefined;
  }
  return distro.versionId ? `${distro.id}-${distro.versionId}` : distro.id;
}
