import { isDigest } from "../../store/blobs/index.ts";
import { ociError } from "./oci-error.ts";
import { parseStrictJson } from "./strict-json.ts";

/** Manifest media types the registry stores (OCI and Docker schema 2, image and index). */
export const manifestTypes = {
  ociManifest: "application/vnd.oci.image.manifest.v1+json",
  ociIndex: "application/vnd.oci.image.index.v1+json",
  dockerManifest: "application/vnd.docker.distribution.manifest.v2+json",
  dockerList: "application/vnd.docker.distribution.manifest.list.v2+json",
} as const;

const indexTypes = new Set<string>([manifestTypes.ociIndex, manifestTypes.dockerList]);
const knownTypes = new Set<string>(Object.values(manifestTypes));

/** A content descriptor (image-spec). */
export interface Descriptor {
  mediaType: string;
  digest: string;
  size: number;
  urls?: string[];
  artifactType?: string;
  annotations?: Record<string, string>;
  platform?: Record<string, unknown>;
}

/** What the registry needs to know of a manifest. */
export interface ParsedManifest {
  mediaType: string;
  isIndex: boolean;
  /** Blobs it references (config and layers). */
  blobs: Descriptor[];
  /** Manifests it references (an index's entries). */
  manifests: Descriptor[];
  subject: Descriptor | undefined;
  /** `artifactType`, else the config media type, else "" (referrers API). */
  artifactType: string;
  annotations: Record<string, string> | undefined;
}

/** Deepest nesting of objects and arrays a pushed manifest may have (real ones stay under 10). */
export const maxManifestDepth = 64;

/**
 * Parses the bytes of a manifest being pushed, as {@link parseManifest} does, after refusing
 * anything two parsers could read differently (see parseStrictJson: invalid UTF-8, duplicate
 * or case-folded duplicate keys, lone surrogates, nesting deeper than 64) and any
 * `schemaVersion` but the JSON number written `2` (`2e308`, `2.0`, `"2"` are refused: Go
 * clients decode it into an int). 400 MANIFEST_INVALID.
 */
export function parsePushedManifest(
  bytes: Buffer,
  contentType: string | undefined,
): ParsedManifest {
  const { value, error } = parseStrictJson(bytes, maxManifestDepth);
  if (error !== undefined) throw ociError(400, "MANIFEST_INVALID", `manifest: ${error}`);
  const manifest = describeManifest(value.value, contentType);
  if (value.topLevelSource.get("schemaVersion") !== "2") {
    throw ociError(400, "MANIFEST_INVALID", "schemaVersion must be the number 2");
  }
  return manifest;
}

/**
 * Parses manifest bytes; `contentType` (parameters ignored) wins when the body names no
 * `mediaType`, and the two must agree when both are present. 400 MANIFEST_INVALID otherwise.
 * Lenient: it reads manifests already stored, which may predate the push-time checks.
 */
export function parseManifest(bytes: Buffer, contentType: string | undefined): ParsedManifest {
  let json: unknown;
  try {
    json = JSON.parse(bytes.toString("utf8"));
  } catch {
    throw ociError(400, "MANIFEST_INVALID", "the manifest is not JSON");
  }
  return describeManifest(json, contentType);
}

function describeManifest(value: unknown, contentType: string | undefined): ParsedManifest {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw ociError(400, "MANIFEST_INVALID", "the manifest is not a JSON object");
  }
  const json = value as Record<string, unknown>;
  const header = contentType?.split(";")[0].trim().toLowerCase() || undefined;
  const declared = typeof json.mediaType === "string" ? json.mediaType : undefined;
  if (header && declared && header !== declared) {
    throw ociError(400, "MANIFEST_INVALID", `Content-Type ${header} does not match mediaType`);
  }
  const mediaType =
    declared ??
    (header && knownTypes.has(header) ? header : undefined) ??
    (Array.isArray(json.manifests) ? manifestTypes.ociIndex : manifestTypes.ociManifest);
  if (!knownTypes.has(mediaType)) {
    throw ociError(400, "MANIFEST_INVALID", `unsupported manifest media type ${mediaType}`);
  }
  const isIndex = indexTypes.has(mediaType);
  const list = (value: unknown, field: string) => {
    if (value === undefined) return [];
    if (!Array.isArray(value)) throw ociError(400, "MANIFEST_INVALID", `${field} must be a list`);
    return value.map((d) => descriptor(d, field));
  };
  const config = isIndex || json.config === undefined ? [] : [descriptor(json.config, "config")];
  const blobs = isIndex ? [] : [...config, ...list(json.layers, "layers")];
  if (!isIndex && config.length === 0) {
    throw ociError(400, "MANIFEST_INVALID", "an image manifest needs a config descriptor");
  }
  const subject = json.subject === undefined ? undefined : descriptor(json.subject, "subject");
  const artifactType =
    typeof json.artifactType === "string" ? json.artifactType : (config[0]?.mediaType ?? "");
  return {
    mediaType,
    isIndex,
    blobs,
    manifests: isIndex ? list(json.manifests, "manifests") : [],
    subject,
    artifactType,
    annotations: isStringMap(json.annotations) ? json.annotations : undefined,
  };
}

function descriptor(value: unknown, field: string): Descriptor {
  const d = value as Descriptor;
  if (
    typeof d !== "object" ||
    d === null ||
    typeof d.mediaType !== "string" ||
    typeof d.digest !== "string" ||
    !isDigest(d.digest) ||
    !Number.isSafeInteger(d.size) ||
    d.size < 0
  ) {
    throw ociError(400, "MANIFEST_INVALID", `${field} holds an invalid descriptor`);
  }
  return d;
}

function isStringMap(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string")
  );
}
