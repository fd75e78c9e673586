import { parsePackageUrl } from "../../vulnerabilities/feeds/package-url.ts";

/** One package an SBOM lists, in the shape every SBOM format is read into. */
export interface SbomPackage {
  /** The name as the SBOM writes it; never prefixed with a Maven group (the purl carries it). */
  name: string;
  /** "" when the SBOM gives none. */
  version: string;
  /** The package URL, or "" when the SBOM gives none or gives one that is not a package URL. */
  purl: string;
  /** The purl type (apk, deb, pypi, npm, maven, golang, …), lowercased; "" without a purl. */
  ecosystem: string;
  /** An SPDX licence id or expression, or "" when the SBOM asserts none. */
  licence: string;
}

/** The SBOM formats and versions Lading reads. */
export type SbomFormat =
  | "spdx-2.2"
  | "spdx-2.3"
  | "cyclonedx-1.4"
  | "cyclonedx-1.5"
  | "cyclonedx-1.6";

/** An SBOM read into packages. */
export interface SbomDocument {
  format: SbomFormat;
  packages: SbomPackage[];
  /**
   * What was skipped or read leniently, one sentence each, so that a report can say why a
   * package it expected is missing instead of the SBOM being refused whole for one bad entry.
   */
  notes: string[];
}

/** A parser's answer: the document, or why it was refused. Parsers never throw. */
export interface SbomResult {
  value?: SbomDocument;
  error?: string;
}

/** Most packages one SBOM may list; a real image SBOM has a few thousand. */
export const MAX_SBOM_PACKAGES = 200_000;

/**
 * The purl and ecosystem for `text`. A purl that does not parse is dropped (with a note)
 * rather than kept, so that a consumer can trust every non-empty purl to parse.
 */
export function readPurl(
  text: unknown,
  where: string | (() => string),
  notes: string[],
): { purl: string; ecosystem: string; name?: string; version?: string } {
  if (typeof text !== "string" || text === "") return { purl: "", ecosystem: "" };
  const parsed = parsePackageUrl(text);
  if (parsed === undefined) {
    const place = typeof where === "string" ? where : where();
    notes.push(`${place}: ${JSON.stringify(text)} is not a package URL, so it was dropped`);
    return { purl: "", ecosystem: "" };
  }
  return { purl: text, ecosystem: parsed.type, name: parsed.name, version: parsed.version };
}

/** True for a plain JSON object. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `value` when it is a non-empty string, else undefined. */
export function text(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value : undefined;
}
