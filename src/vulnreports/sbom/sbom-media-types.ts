/** The kinds of OCI referrer payload that carry (or wrap) an SBOM. */
export type SbomKind = "spdx" | "cyclonedx" | "in-toto" | "dsse";

// Keyed by the media type without parameters: CycloneDX adds `;version=1.5`, and any type may
// carry a charset; neither changes which parser reads the body.
const KINDS: Record<string, SbomKind> = {
  "application/spdx+json": "spdx",
  // What `cosign attach sbom --type spdx` and older syft releases push.
  "text/spdx+json": "spdx",
  "application/vnd.cyclonedx+json": "cyclonedx",
  "application/vnd.in-toto+json": "in-toto",
  // The layer media type `cosign attest` gives an attestation.
  "application/vnd.dsse.envelope.v1+json": "dsse",
};

/**
 * Which SBOM kind an OCI artifactType, config media type or layer media type names, or
 * undefined when it names none (including plain `application/json`, which says nothing about
 * the format; parseSbom then looks at the content).
 */
export function sbomKindOf(mediaType: string): SbomKind | undefined {
  return KINDS[bareMediaType(mediaType)];
}

/** The media type lowercased, without parameters or surrounding space. */
export function bareMediaType(mediaType: string): string {
  const semicolon = mediaType.indexOf(";");
  return (semicolon >= 0 ? mediaType.slice(0, semicolon) : mediaType).trim().toLowerCase();
}

/** Every media type sbomKindOf recognises, for an artifactType filter on the referrers API. */
export const sbomMediaTypes: readonly string[] = Object.keys(KINDS);
