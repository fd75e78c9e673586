import { pipeline, type Readable, Transform } from "node:stream";
import {
  type FileHashes,
  LibraryError,
  storeLibraryFile,
  versionUid,
} from "../../../libraries/index.ts";
import type { LibraryCaller, LibraryContext, LibraryRequest } from "../library-context.ts";
import { isSnapshot, type MavenPath, mavenArtifactUid, storedChecksum } from "./maven-path.ts";
import { publishMavenFile } from "./maven-publish.ts";
import { maxPomPrefix, pomDescription } from "./pom-description.ts";

type FilePath = Extract<MavenPath, { kind: "file" }>;

/** The uploaded maven-metadata.xml is read and dropped: Lading generates its own. */
const maxMetadataBytes = 1024 * 1024;
/** A checksum file is one hex digest, perhaps followed by a file name. */
const maxChecksumBytes = 1024;

/**
 * Handles one PUT of `mvn deploy`: an artifact file joins its version (created by the first
 * file), a checksum file is compared with the stored file's hash, and maven-metadata.xml is
 * accepted and dropped because the repository generates it from the catalogue.
 */
export async function putMavenFile(
  ctx: LibraryContext,
  r: LibraryRequest,
  caller: LibraryCaller,
  path: MavenPath,
): Promise<void> {
  if (path.kind === "metadata") {
    await readSmallBody(r, path.checksum ? maxChecksumBytes : maxMetadataBytes);
    created(r);
    return;
  }
  if (isSnapshot(path.version)) {
    throw new LibraryError(
      400,
      `${path.version} is a SNAPSHOT version; this repository holds releases only (released versions never change)`,
    );
  }
  if (path.checksum) await checkChecksum(ctx, r, caller, path);
  else await storeFile(ctx, r, caller, path);
}

async function checkChecksum(
  ctx: LibraryContext,
  r: LibraryRequest,
  caller: LibraryCaller,
  path: FilePath,
): Promise<void> {
  const algorithm = path.checksum ?? "sha1";
  const body = (await readSmallBody(r, maxChecksumBytes)).toString("utf8");
  const declared = body.trim().split(/\s/, 1)[0].toLowerCase();
  const uid = mavenArtifactUid(caller.orgUid, path);
  const row = await ctx.db
    .selectFrom("library_files")
    .select(["digest", "sha1", "md5", "sha512"])
    .where("artifact_uid", "=", uid)
    .where("filename", "=", path.filename)
    .where("version_uid", "=", versionUid(uid, path.version))
    .executeTakeFirst();
  if (!row) {
    throw new LibraryError(404, `${path.filename} is not stored; upload it before its checksum`);
  }
  const stored = storedChecksum(row, algorithm);
  if (declared !== stored) {
    throw new LibraryError(
      400,
      `${algorithm} of ${path.filename} is ${stored}, not the uploaded ${declared || "(empty)"}`,
    );
  }
  created(r);
}

async function storeFile(
  ctx: LibraryContext,
  r: LibraryRequest,
  caller: LibraryCaller,
  path: FilePath,
): Promise<void> {
  const uid = mavenArtifactUid(caller.orgUid, path);
  const declaredLength = Number(r.req.headers["content-length"] ?? 0);
  if (declaredLength > ctx.maxFileBytes) {
    throw new LibraryError(413, `file is larger than ${ctx.maxFileBytes} bytes`);
  }
  const taken = await ctx.db
    .selectFrom("library_files")
    .select("filename")
    .where("artifact_uid", "=", uid)
    .where("filename", "=", path.filename)
    .executeTakeFirst();
  if (taken) throw new LibraryError(409, `${path.filename} is already published`);

  const extension = path.filename.slice(path.filename.lastIndexOf(".") + 1);
  const isPom = extension === "pom";
  const pomChunks: Buffer[] = [];
  let pomBytes = 0;
  const keepPomStart = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      if (pomBytes < maxPomPrefix) {
        const part = chunk.subarray(0, maxPomPrefix - pomBytes);
        pomChunks.push(part);
        pomBytes += part.length;
      }
      done(null, chunk);
    },
  });
  // pipeline, unlike pipe, passes a client's abort on, so the store sees the failure.
  const body: Readable = isPom ? pipeline(r.req, keepPomStart, () => {}) : r.req;
  const stored = await storeLibraryFile(ctx.blobs, body, {
    expected: declaredHashes(r),
    maxBytes: ctx.maxFileBytes,
  });
  const description = isPom ? pomDescription(Buffer.concat(pomChunks).toString("utf8")) : "";
  await publishMavenFile(ctx.db, {
    orgUid: caller.orgUid,
    path,
    stored,
    description,
    actor: caller.actor,
    source: r.baseUrl,
  });
  created(r);
}

/** Checksums some Maven transports send as headers; a mismatch stores nothing. */
function declaredHashes(r: LibraryRequest): Partial<FileHashes> {
  const expected: Partial<FileHashes> = {};
  for (const algorithm of ["sha1", "md5", "sha256", "sha512"] as const) {
    const value = r.req.headers[`x-checksum-${algorithm}`];
    if (typeof value === "string" && /^[0-9a-fA-F]{32,128}$/.test(value)) {
      expected[algorithm] = value;
    }
  }
  return expected;
}

/** Reads a body of at most `max` bytes (413 past it). */
async function readSmallBody(r: LibraryRequest, max: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  // Leaving the loop early must not destroy the request, or the 413 never reaches the client.
  for await (const chunk of r.req.iterator({ destroyOnReturn: false }) as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > max) throw new LibraryError(413, `body is larger than ${max} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function created(r: LibraryRequest): void {
  r.res.statusCode = 201;
  r.res.setHeader("content-length", 0);
  r.res.end();
}
