import { createHash } from "node:crypto";
import { LibraryError, versionUid } from "../../../libraries/index.ts";
import { sendStream } from "../../oci/oci-context.ts";
import type { LibraryContext, LibraryRequest } from "../library-context.ts";
import { renderMavenMetadata } from "./maven-metadata.ts";
import { type MavenPath, mavenArtifactUid, parseMavenPath, storedChecksum } from "./maven-path.ts";
import { putMavenFile } from "./maven-upload.ts";

type FilePath = Extract<MavenPath, { kind: "file" }>;
type MetadataPath = Extract<MavenPath, { kind: "metadata" }>;

/**
 * Serves a Maven 2 layout repository under `/java/<org>/`: files and their checksum files,
 * `maven-metadata.xml` generated from the catalogue, and `mvn deploy`'s PUTs.
 */
export async function serveMaven(ctx: LibraryContext, r: LibraryRequest): Promise<void> {
  const parsed = parseMavenPath(r.rest);
  if (r.method === "PUT") {
    const caller = await ctx.authorize(r, "publish");
    if (parsed.error !== undefined || !parsed.value) {
      throw new LibraryError(400, parsed.error ?? "bad path");
    }
    await putMavenFile(ctx, r, caller, parsed.value);
    return;
  }
  if (r.method !== "GET" && r.method !== "HEAD") {
    throw new LibraryError(405, `${r.method} is not supported; use GET, HEAD or PUT`);
  }
  const caller = await ctx.authorize(r, "read");
  // A GET for something that cannot be in the layout is simply not there.
  if (parsed.error !== undefined || !parsed.value) {
    throw new LibraryError(404, `not found: ${parsed.error ?? r.rest}`);
  }
  const path = parsed.value;
  if (path.kind === "metadata") await getMetadata(ctx, r, caller.orgUid, path);
  else await getFile(ctx, r, caller.orgUid, path);
}

async function getFile(
  ctx: LibraryContext,
  r: LibraryRequest,
  orgUid: string,
  path: FilePath,
): Promise<void> {
  const uid = mavenArtifactUid(orgUid, path);
  const row = await ctx.db
    .selectFrom("library_files")
    .select(["digest", "size", "sha1", "md5", "sha512", "content_type"])
    .where("artifact_uid", "=", uid)
    .where("filename", "=", path.filename)
    .where("version_uid", "=", versionUid(uid, path.version))
    .executeTakeFirst();
  const shown = `${path.groupId}:${path.artifactId}:${path.version} ${path.filename}`;
  if (!row) throw new LibraryError(404, `${shown} not found`);
  if (path.checksum) {
    sendText(r, storedChecksum(row, path.checksum), "text/plain; charset=utf-8");
    return;
  }
  const headers = {
    "content-type": row.content_type,
    "content-length": Number(row.size),
    etag: `"${row.digest}"`,
    "x-checksum-sha1": row.sha1,
    "x-checksum-md5": row.md5,
  };
  if (r.method === "HEAD") {
    await sendStream(r.res, 200, headers, undefined);
    return;
  }
  await sendStream(r.res, 200, headers, await ctx.blobs.get(row.digest));
}

async function getMetadata(
  ctx: LibraryContext,
  r: LibraryRequest,
  orgUid: string,
  path: MetadataPath,
): Promise<void> {
  const uid = mavenArtifactUid(orgUid, path);
  const artifact = await ctx.db
    .selectFrom("library_artifacts")
    .select("update_time")
    .where("uid", "=", uid)
    .executeTakeFirst();
  const shown = `${path.groupId}:${path.artifactId}`;
  if (!artifact) throw new LibraryError(404, `${shown} has no versions`);
  const versions = await ctx.db
    .selectFrom("library_versions")
    .select("version")
    .where("artifact_uid", "=", uid)
    .orderBy("version_rank")
    .execute();
  const xml = renderMavenMetadata({
    groupId: path.groupId,
    artifactId: path.artifactId,
    versions: versions.map((v) => v.version),
    updateTime: artifact.update_time,
  });
  if (path.checksum) {
    sendText(r, createHash(path.checksum).update(xml).digest("hex"), "text/plain; charset=utf-8");
  } else {
    sendText(r, xml, "application/xml; charset=utf-8");
  }
}

function sendText(r: LibraryRequest, text: string, contentType: string): void {
  r.res.statusCode = 200;
  r.res.setHeader("content-type", contentType);
  r.res.setHeader("content-length", Buffer.byteLength(text));
  if (r.method === "HEAD") r.res.end();
  else r.res.end(text);
}
