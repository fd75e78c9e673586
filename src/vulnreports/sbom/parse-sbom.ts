import { unwrapDsse, unwrapStatement } from "./attestation.ts";
import { parseCycloneDx } from "./cyclonedx-parser.ts";
import { jsonDepth } from "./json-depth.ts";
import { bareMediaType, type SbomKind, sbomKindOf } from "./sbom-media-types.ts";
import { isRecord, type SbomResult } from "./sbom-package.ts";
import { parseSpdx } from "./spdx-parser.ts";

/** Largest SBOM body read; syft's SBOM of a large distro image is a few MiB. */
export const MAX_SBOM_BYTES = 64 * 1024 * 1024;
/** Deepest JSON nesting read; real SBOMs stay under ten, nested CycloneDX under twenty. */
export const MAX_SBOM_DEPTH = 64;

// Media types that say "JSON" without saying which format, so the content decides.
const GENERIC = new Set(["", "application/json", "application/octet-stream"]);

/**
 * Reads an SBOM pushed as an OCI referrer, given its body and the artifactType, config or layer
 * media type that names it (sbomKindOf). SPDX and CycloneDX JSON are read directly, an in-toto
 * Statement or a DSSE envelope around one is unwrapped first (without verifying signatures).
 * A media type that names one kind while the body is another is refused, except that in-toto
 * and DSSE stand for each other, as cosign labels a DSSE envelope with either. Every refusal
 * is an `error` saying why; this never throws.
 */
export function parseSbom(bytes: Buffer | string, mediaType: string): SbomResult {
  const declared = sbomKindOf(mediaType);
  if (declared === undefined && !GENERIC.has(bareMediaType(mediaType))) {
    return { error: `media type ${JSON.stringify(mediaType)} does not name an SBOM` };
  }
  return readBody(bytes, declared, false);
}

function readBody(
  bytes: Buffer | string,
  declared: SbomKind | undefined,
  inDsse: boolean,
): SbomResult {
  const json = readJson(bytes);
  if (json.error !== undefined) return { error: json.error };
  const found = kindOfContent(json.value);
  if (found === undefined) {
    if (declared === undefined) {
      return { error: "the body is not an SPDX, CycloneDX, in-toto or DSSE document" };
    }
  } else if (declared !== undefined && !compatible(declared, found)) {
    return { error: `the media type names ${declared} but the body is ${found}` };
  }
  return readKind(json.value, found ?? (declared as SbomKind), inDsse);
}

function readKind(value: unknown, kind: SbomKind, inDsse: boolean): SbomResult {
  switch (kind) {
    case "spdx":
      return parseSpdx(value);
    case "cyclonedx":
      return parseCycloneDx(value);
    case "in-toto": {
      const statement = unwrapStatement(value);
      if (statement.value === undefined) return { error: statement.error };
      const inner = readKind(statement.value.sbom, statement.value.kind, inDsse);
      return inner.error === undefined ? inner : { error: `in-toto predicate: ${inner.error}` };
    }
    case "dsse": {
      // One envelope is what cosign writes; more would only be a way to multiply the work.
      if (inDsse) return { error: "a DSSE envelope inside a DSSE payload is not read" };
      const payload = unwrapDsse(value);
      if (payload.value === undefined) return { error: payload.error };
      const inner = readBody(payload.value, "in-toto", true);
      return inner.error === undefined ? inner : { error: `DSSE payload: ${inner.error}` };
    }
  }
}

function compatible(declared: SbomKind, found: SbomKind): boolean {
  if (declared === found) return true;
  const attestation = new Set<SbomKind>(["in-toto", "dsse"]);
  return attestation.has(declared) && attestation.has(found);
}

/** The body as JSON, after the size and depth checks that keep a hostile one cheap to refuse. */
function readJson(bytes: Buffer | string): { value?: unknown; error?: string } {
  const size = typeof bytes === "string" ? Buffer.byteLength(bytes, "utf8") : bytes.length;
  if (size > MAX_SBOM_BYTES) {
    return { error: `the SBOM is ${size} bytes, more than the ${MAX_SBOM_BYTES} (64 MiB) allowed` };
  }
  if (size === 0) return { error: "the SBOM is empty" };
  let text = typeof bytes === "string" ? bytes : bytes.toString("utf8");
  // Some Windows tools write a byte-order mark, which JSON.parse rejects.
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const depth = jsonDepth(text, MAX_SBOM_DEPTH);
  if (depth > MAX_SBOM_DEPTH) {
    return { error: `the JSON nests deeper than the ${MAX_SBOM_DEPTH} levels allowed` };
  }
  try {
    return { value: JSON.parse(text) };
  } catch (error) {
    return { error: `not valid JSON: ${(error as Error).message}` };
  }
}

/** The kind the parsed body looks like, from the one field each format requires. */
function kindOfContent(value: unknown): SbomKind | undefined {
  if (!isRecord(value)) return undefined;
  if ("spdxVersion" in value) return "spdx";
  if ("bomFormat" in value) return "cyclonedx";
  if ("payloadType" in value && "payload" in value) return "dsse";
  if ("_type" in value) return "in-toto";
  return undefined;
}
