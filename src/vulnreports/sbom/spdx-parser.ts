import {
  isRecord,
  MAX_SBOM_PACKAGES,
  readPurl,
  type SbomPackage,
  type SbomResult,
  text,
} from "./sbom-package.ts";

/**
 * 2.2 is read like 2.3: every field used here (packages, versionInfo, externalRefs,
 * licenseConcluded/Declared, documentDescribes, relationships) has the same JSON shape in both,
 * and syft and older cosign still emit 2.2.
 */
const VERSIONS = { "SPDX-2.2": "spdx-2.2", "SPDX-2.3": "spdx-2.3" } as const;

// 2.3 spells the category with a hyphen; 2.2 JSON (and tools written against it) an underscore.
const PACKAGE_MANAGER = new Set(["PACKAGE-MANAGER", "PACKAGE_MANAGER"]);

// An image is the referrer's subject, not a package in it: advisories never name it.
const IMAGE_PURL_TYPES = new Set(["oci", "docker"]);

/**
 * Reads an SPDX 2.3 (or 2.2) JSON document, already parsed, into its packages. The package the
 * document DESCRIBES is left out when it has no purl or an image purl, because that is the
 * image (or directory) the SBOM was made from rather than something installed in it; a
 * described package with a real purl (an SBOM of one library) is kept. Files and snippets are
 * ignored: vulnerability matching works on packages.
 */
export function parseSpdx(doc: unknown): SbomResult {
  if (!isRecord(doc)) return { error: "an SPDX document must be a JSON object" };
  const version = doc.spdxVersion;
  if (typeof version !== "string") return { error: "spdxVersion is missing; not an SPDX document" };
  const format = VERSIONS[version as keyof typeof VERSIONS];
  if (format === undefined) {
    return {
      error: `spdxVersion ${JSON.stringify(version)} is not one Lading reads (SPDX-2.2, SPDX-2.3)`,
    };
  }
  const list = doc.packages ?? [];
  if (!Array.isArray(list)) return { error: "packages must be a list" };
  if (list.length > MAX_SBOM_PACKAGES) {
    return { error: `${list.length} packages is more than the ${MAX_SBOM_PACKAGES} allowed` };
  }
  const notes: string[] = [];
  if (format === "spdx-2.2") notes.push("SPDX-2.2 was read as SPDX-2.3");
  const described = describedIds(doc);
  const packages: SbomPackage[] = [];
  for (const [i, entry] of list.entries()) {
    const where = `packages[${i}]`;
    if (!isRecord(entry)) {
      notes.push(`${where} is not an object, so it was skipped`);
      continue;
    }
    const purl = readPurl(purlOf(entry), where, notes);
    const id = text(entry.SPDXID);
    if (id !== undefined && described.has(id)) {
      if (purl.purl === "" || IMAGE_PURL_TYPES.has(purl.ecosystem)) continue;
    }
    const name = text(entry.name) ?? purl.name;
    if (name === undefined) {
      notes.push(`${where} has no name, so it was skipped`);
      continue;
    }
    packages.push({
      name,
      version: text(entry.versionInfo) ?? purl.version ?? "",
      purl: purl.purl,
      ecosystem: purl.ecosystem,
      licence: licenceOf(entry),
    });
  }
  return { value: { format, packages, notes } };
}

/**
 * The ids the document describes: 2.2's `documentDescribes` (deprecated but still written by
 * 2.3 tools) and DESCRIBES / DESCRIBED_BY relationships with the document.
 */
function describedIds(doc: Record<string, unknown>): Set<string> {
  const ids = new Set<string>();
  const self = text(doc.SPDXID) ?? "SPDXRef-DOCUMENT";
  if (Array.isArray(doc.documentDescribes)) {
    for (const id of doc.documentDescribes) if (typeof id === "string") ids.add(id);
  }
  if (Array.isArray(doc.relationships)) {
    for (const r of doc.relationships) {
      if (!isRecord(r)) continue;
      const from = text(r.spdxElementId);
      const to = text(r.relatedSpdxElement);
      if (from === undefined || to === undefined) continue;
      if (r.relationshipType === "DESCRIBES" && from === self) ids.add(to);
      if (r.relationshipType === "DESCRIBED_BY" && to === self) ids.add(from);
    }
  }
  return ids;
}

/** The first package-manager purl reference's locator, if any. */
function purlOf(entry: Record<string, unknown>): unknown {
  if (!Array.isArray(entry.externalRefs)) return undefined;
  for (const ref of entry.externalRefs) {
    if (!isRecord(ref) || ref.referenceType !== "purl") continue;
    const category = typeof ref.referenceCategory === "string" ? ref.referenceCategory : "";
    if (PACKAGE_MANAGER.has(category.toUpperCase())) return ref.referenceLocator;
  }
  return undefined;
}

/**
 * The concluded licence, which is what the SBOM's author determined; the declared one (what
 * the package says of itself) only when nothing was concluded.
 */
function licenceOf(entry: Record<string, unknown>): string {
  return asserted(entry.licenseConcluded) ?? asserted(entry.licenseDeclared) ?? "";
}

function asserted(value: unknown): string | undefined {
  const licence = text(value)?.trim();
  return licence === undefined || licence === "" || licence === "NOASSERTION" || licence === "NONE"
    ? undefined
    : licence;
}
