import {
  ecosystemSchemes,
  LibraryError,
  type StoredLibraryFile,
} from "../../../libraries/index.ts";
import { parseDistTag } from "./npm-dist-tags.ts";
import { tarballName } from "./packument.ts";
import type { TarballFacts } from "./tarball-inspector.ts";

/** Longest description kept from package.json. */
const maxDescription = 2000;
/**
 * Largest manifest stored (without readme and dist): every packument carries every version's
 * manifest, so one oversized version would weigh on each install of the package.
 */
const maxManifestBytes = 256 * 1024;

/** The hex digests a manifest's `dist` declares. */
export function declaredHashes(manifest: Record<string, unknown>): {
  sha1?: string;
  sha512?: string;
} {
  const dist = manifest.dist as { shasum?: unknown; integrity?: unknown } | undefined;
  const out: { sha1?: string; sha512?: string } = {};
  if (typeof dist?.shasum === "string") out.sha1 = dist.shasum.toLowerCase();
  if (typeof dist?.integrity === "string") {
    for (const part of dist.integrity.split(/\s+/)) {
      if (part.startsWith("sha512-")) {
        out.sha512 = Buffer.from(part.slice(7).split("?")[0], "base64").toString("hex");
      }
    }
  }
  return out;
}

/** The body's only version and its manifest; with `lenient`, nothing when not yet known. */
export function onlyVersion(
  versions: unknown,
  name: string,
  lenient = false,
): { version?: string; manifest?: Record<string, unknown> } {
  if (versions === undefined && lenient) return {};
  if (!isObject(versions)) throw new LibraryError(400, "versions must be an object");
  const keys = Object.keys(versions);
  if (keys.length !== 1) {
    throw new LibraryError(400, `a publish carries exactly one version, not ${keys.length}`);
  }
  const version = keys[0];
  if (!ecosystemSchemes.javascript.isValid(version)) {
    throw new LibraryError(400, `version "${version}" is not a semantic version`);
  }
  const manifest = versions[version];
  if (!isObject(manifest)) throw new LibraryError(400, `versions["${version}"] is not an object`);
  if (manifest.name !== name || manifest.version !== version) {
    throw new LibraryError(
      400,
      `the manifest names ${String(manifest.name)}@${String(manifest.version)}, not ${name}@${version}`,
    );
  }
  return { version, manifest };
}

/** Checks the document against the URL and the stored tarball; what to publish. */
export function checkDocument(
  doc: unknown,
  name: string,
  key: string,
  stored: StoredLibraryFile,
  facts: TarballFacts,
) {
  if (!isObject(doc)) throw new LibraryError(400, "the body is not a JSON object");
  if (doc.name !== name || (doc._id !== undefined && doc._id !== name)) {
    throw new LibraryError(400, `the document names ${String(doc.name)}, not ${name}`);
  }
  const { version = "", manifest = {} } = onlyVersion(doc.versions, name);
  checkAttachmentName(key, name, version);
  const attachments = doc._attachments as Record<string, Record<string, unknown>>;
  if (Object.keys(attachments).length !== 1) {
    throw new LibraryError(400, "a publish carries exactly one attachment");
  }
  const length = attachments[key]?.length;
  if (length !== undefined && length !== stored.size) {
    throw new LibraryError(
      400,
      `the attachment is ${stored.size} bytes, not the declared ${length}`,
    );
  }
  const declared = declaredHashes(manifest);
  if (
    (declared.sha1 && declared.sha1 !== stored.sha1) ||
    (declared.sha512 && declared.sha512 !== stored.sha512)
  ) {
    throw new LibraryError(400, "dist.shasum or dist.integrity does not match the tarball");
  }
  const pkg = facts.packageJson;
  if (pkg.name !== name || pkg.version !== version) {
    throw new LibraryError(
      400,
      `the tarball's package.json names ${String(pkg.name)}@${String(pkg.version)}, not ${name}@${version}`,
    );
  }
  const tags = distTagsOf(doc["dist-tags"], version);
  return {
    version,
    manifest: storedManifest(manifest),
    tags,
    description: packageDescription(pkg),
  };
}

/** The description a package.json gives, as the catalogue keeps it. */
export function packageDescription(pkg: Record<string, unknown>): string {
  return typeof pkg.description === "string" ? pkg.description.slice(0, maxDescription) : "";
}

/** The manifest as stored (see keptManifest); 413 when even that is too large. */
export function storedManifest(manifest: Record<string, unknown>): Record<string, unknown> {
  const kept = keptManifest(manifest);
  if (JSON.stringify(kept).length > maxManifestBytes) {
    throw new LibraryError(413, `the manifest (without readme) exceeds ${maxManifestBytes} bytes`);
  }
  return kept;
}

/** npm names the attachment `<name>-<version>.tgz`, the scope included. */
export function checkAttachmentName(key: string, name: string, version: string): void {
  const file = tarballName(name, version);
  if (key !== file && key !== `${name}-${version}.tgz`) {
    throw new LibraryError(400, `the attachment of ${name}@${version} must be named ${file}`);
  }
}

/** The tags a publish sets: each must name the published version; `latest` when none. */
function distTagsOf(value: unknown, version: string): string[] {
  if (value === undefined) return ["latest"];
  if (!isObject(value)) throw new LibraryError(400, "dist-tags must be an object");
  const tags = Object.keys(value);
  for (const tag of tags) {
    const parsed = parseDistTag(tag);
    if (parsed.error !== undefined) throw new LibraryError(400, parsed.error);
    if (value[tag] !== version) {
      throw new LibraryError(400, `dist-tag ${tag} must point at the published version ${version}`);
    }
  }
  return tags.length > 0 ? tags : ["latest"];
}

/**
 * The manifest as stored: what the publisher wrote, without `dist` (rebuilt from the stored
 * file), the readme (large, and not needed to install) and npm's private fields other than the
 * ones the public registry keeps.
 */
function keptManifest(manifest: Record<string, unknown>): Record<string, unknown> {
  const kept: Record<string, unknown> = {};
  const privateKept = new Set(["_hasShrinkwrap", "_nodeVersion", "_npmVersion"]);
  for (const [field, value] of Object.entries(manifest)) {
    if (field === "dist" || field === "readme" || field === "readmeFilename") continue;
    if (field.startsWith("_") && !privateKept.has(field)) continue;
    kept[field] = value;
  }
  return kept;
}

/** A plain JSON object (not null, not an array). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
