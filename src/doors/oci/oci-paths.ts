import { isRegistryPath, isTagName } from "../../registry/index.ts";
import { isDigest } from "../../store/blobs/index.ts";
import { ociError } from "./oci-error.ts";

/**
 * What a manifest reference is: a digest, a tag, or neither (a name no tag can have, which
 * reads answer like any missing manifest and a PUT refuses).
 */
export type ReferenceKind = "digest" | "tag" | "invalid";

/** One parsed OCI request path. */
export type OciRoute =
  | { kind: "base" }
  | { kind: "catalog" }
  | { kind: "manifest"; name: string; reference: string; referenceKind: ReferenceKind }
  | { kind: "blob"; name: string; digest: string }
  | { kind: "uploads"; name: string }
  | { kind: "upload"; name: string; id: string }
  | { kind: "tags"; name: string }
  | { kind: "referrers"; name: string; digest: string }
  | { kind: "history"; name: string; tag: string };

const routes: [RegExp, (m: RegExpExecArray) => OciRoute][] = [
  [/^\/v2\/?$/, () => ({ kind: "base" })],
  [/^\/v2\/_catalog$/, () => ({ kind: "catalog" })],
  [
    /^\/v2\/(.+)\/manifests\/([^/]+)$/,
    // The kind is set once the name has been checked.
    (m) => ({ kind: "manifest", name: m[1], reference: m[2], referenceKind: "invalid" }),
  ],
  [/^\/v2\/(.+)\/blobs\/uploads\/?$/, (m) => ({ kind: "uploads", name: m[1] })],
  [/^\/v2\/(.+)\/blobs\/uploads\/([^/]+)$/, (m) => ({ kind: "upload", name: m[1], id: m[2] })],
  [/^\/v2\/(.+)\/blobs\/([^/]+)$/, (m) => ({ kind: "blob", name: m[1], digest: m[2] })],
  [/^\/v2\/(.+)\/tags\/list$/, (m) => ({ kind: "tags", name: m[1] })],
  [/^\/v2\/(.+)\/referrers\/([^/]+)$/, (m) => ({ kind: "referrers", name: m[1], digest: m[2] })],
];

/**
 * The route of `path` (no query), with names, tags and digests validated strictly so that none
 * can reach outside the store; undefined when no route matches. `history` is the operator
 * segment of the tag history endpoint (`_lading`).
 */
export function matchOciRoute(path: string, history: string): OciRoute | undefined {
  const historyRe = new RegExp(`^/v2/(.+)/${history}/history/([^/]+)$`);
  const h = historyRe.exec(path);
  let route: OciRoute | undefined = h ? { kind: "history", name: h[1], tag: h[2] } : undefined;
  for (const [re, make] of routes) {
    if (route) break;
    const m = re.exec(path);
    if (m) route = make(m);
  }
  if (!route || route.kind === "base" || route.kind === "catalog") return route;
  checkName(route.name);
  if ("digest" in route) checkDigest(route.digest);
  if (route.kind === "history") checkTag(route.tag);
  if (route.kind === "manifest") route.referenceKind = referenceKind(route.reference);
  if (route.kind === "upload" && !/^[a-f0-9-]{36}$/.test(route.id)) {
    throw ociError(404, "BLOB_UPLOAD_UNKNOWN", "upload session unknown");
  }
  return route;
}

/**
 * The kind of a manifest reference. Anything with a `:` names a digest (tags cannot hold one),
 * so a malformed digest is 400 DIGEST_INVALID; any other invalid reference is left to the
 * handler, because the distribution-spec conformance suite expects a read of it to be 404.
 */
function referenceKind(reference: string): ReferenceKind {
  if (isDigest(reference)) return "digest";
  if (reference.includes(":")) checkDigest(reference);
  return isTagName(reference) ? "tag" : "invalid";
}

/** Throws 400 NAME_INVALID unless `name` is a valid `<org>/<image>` path. */
export function checkName(name: string): void {
  if (!isRegistryPath(name)) {
    throw ociError(400, "NAME_INVALID", `invalid repository name "${name.slice(0, 256)}"`, {
      name: name.slice(0, 256),
    });
  }
}

/** Throws 400 DIGEST_INVALID unless `digest` is sha256 or sha512 lowercase hex. */
export function checkDigest(digest: string): void {
  if (!isDigest(digest)) {
    throw ociError(400, "DIGEST_INVALID", "digest must be sha256:<64 hex> or sha512:<128 hex>", {
      digest: digest.slice(0, 256),
    });
  }
}

/** Throws 400 MANIFEST_INVALID (the spec's code for a bad reference) unless `tag` is valid. */
export function checkTag(tag: string): void {
  if (!isTagName(tag)) {
    throw ociError(400, "MANIFEST_INVALID", `invalid tag "${tag.slice(0, 256)}"`, {
      tag: tag.slice(0, 256),
    });
  }
}
