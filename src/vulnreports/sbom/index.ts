export { unwrapDsse, unwrapStatement, type WrappedSbom } from "./attestation.ts";
export { parseCycloneDx } from "./cyclonedx-parser.ts";
export { MAX_SBOM_BYTES, MAX_SBOM_DEPTH, parseSbom } from "./parse-sbom.ts";
export { type SbomKind, sbomKindOf, sbomMediaTypes } from "./sbom-media-types.ts";
export {
  MAX_SBOM_PACKAGES,
  type SbomDocument,
  type SbomFormat,
  type SbomPackage,
  type SbomResult,
} from "./sbom-package.ts";
export { parseSpdx } from "./spdx-parser.ts";
