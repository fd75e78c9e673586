import { artifactUid, LibraryError } from "../../../libraries/index.ts";
import { sendStream } from "../../oci/oci-context.ts";
import type { LibraryContext, LibraryRequest } from "../library-context.ts";
import { sendNpmBytes } from "./npm-json.ts";
import { buildPackuments, type PackumentArtifact } from "./packument.ts";
import type { PackumentCache } from "./packument-cache.ts";

const abbreviatedType = "application/vnd.npm.install-v1+json";

/** The artifact row of a package, 404 when it has never been published. */
export async function readArtifact(
  ctx: LibraryContext,
  orgUid: string,
  name: string,
): Promise<PackumentArtifact> {
  const row = await ctx.db
    .selectFrom("library_artifacts")
    .select([
      "uid",
      "name",
      "description",
      "dist_tags",
      "version_count",
      "create_time",
      "update_time",
    ])
    .where("uid", "=", artifactUid("javascript", orgUid, name))
    .executeTakeFirst();
  if (!row) throw new LibraryError(404, `package ${name} not found`);
  return { ...row, version_count: Number(row.version_count) };
}

/**
 * `GET /<name>`: the abbreviated packument when the client asks for it (`npm install` does),
 * else the full one. The bytes come from the cache unless the artifact row moved; the entity
 * tag is their hash, so `If-None-Match` gets a 304 without a body.
 */
export async function servePackument(
  ctx: LibraryContext,
  cache: PackumentCache,
  r: LibraryRequest,
  name: string,
): Promise<void> {
  const caller = await ctx.authorize(r, "read");
  const artifact = await readArtifact(ctx, caller.orgUid, name);
  const baseUrl = r.baseUrl;
  const packuments = await cache.get(artifact, () => buildPackuments(ctx.db, artifact, baseUrl));
  const abbreviated = (r.req.headers.accept ?? "").includes(abbreviatedType);
  const form = abbreviated ? packuments.abbreviated : packuments.full;
  const gzip = acceptsGzip(r.req.headers["accept-encoding"]);
  const { body, etag } = gzip ? form.gzip : form.plain;
  const headers: Record<string, string> = {
    "content-type": abbreviated ? abbreviatedType : "application/json",
    etag,
    // Each request re-checks the row; a private organisation's document stays out of shared caches.
    "cache-control": "private, no-cache",
    vary: "accept, accept-encoding, authorization",
  };
  if (gzip) headers["content-encoding"] = "gzip";
  if (matches(r.req.headers["if-none-match"], etag)) {
    r.res.statusCode = 304;
    for (const [header, value] of Object.entries(headers)) r.res.setHeader(header, value);
    r.res.end();
    return;
  }
  sendNpmBytes(r, 200, body, headers);
}

/** `GET /<name>/-/<file>`: a version's tarball, streamed from the blob store. */
export async function serveTarball(
  ctx: LibraryContext,
  r: LibraryRequest,
  name: string,
  filename: string,
): Promise<void> {
  const caller = await ctx.authorize(r, "read");
  const file = await ctx.db
    .selectFrom("library_files")
    .select(["digest", "size", "sha1"])
    .where("artifact_uid", "=", artifactUid("javascript", caller.orgUid, name))
    .where("filename", "=", filename)
    .executeTakeFirst();
  if (!file) throw new LibraryError(404, `${name} has no file ${filename}`);
  const headers = {
    "content-type": "application/octet-stream",
    "content-length": Number(file.size),
    etag: `"${file.sha1}"`,
    "cache-control": "private, max-age=31536000, immutable",
  };
  if (r.method === "HEAD") {
    await sendStream(r.res, 200, headers, undefined);
    return;
  }
  await sendStream(r.res, 200, headers, await ctx.blobs.get(file.digest));
}

/** True when the client takes gzip (npm sends `gzip,deflate`); `q=0` refuses it. */
function acceptsGzip(header: string | undefined): boolean {
  if (!header) return false;
  return header.split(",").some((part) => {
    const [coding, ...params] = part.trim().toLowerCase().split(";");
    if (coding.trim() !== "gzip" && coding.trim() !== "*") return false;
    return !params.some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p));
  });
}

/** True when an If-None-Match header names `etag` (or is `*`). */
function matches(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  return header.split(",").some((t) => {
    const tag = t.trim().replace(/^W\//, "");
    return tag === etag || tag === "*";
  });
}
