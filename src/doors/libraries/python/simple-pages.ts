import { createHash } from "node:crypto";
import { promisify } from "node:util";
import { gzip as gzipCallback } from "node:zlib";
import type { Kysely } from "kysely";
import { artifactUid, normalizePythonName } from "../../../libraries/index.ts";
import { type MetadataSchema, precompiled } from "../../../store/metadata/index.ts";
import { createStampedCache } from "../stamped-cache.ts";
import { projectHtml, projectJson, type SimpleFile, type SimplePage } from "./simple-format.ts";

/** A page body as sent, and gzipped once for the clients that accept it (pip does). */
export interface PageBody {
  plain: Buffer;
  gzip: Buffer;
}

/** A project page rendered in both formats, valid while its artifact's stamp is unchanged. */
export interface RenderedPage {
  stamp: string;
  etag: string;
  json: PageBody;
  html: PageBody;
  /** Bytes held. */
  size: number;
}

/** `text` and its gzip (a 500-version page shrinks from some 140 KiB to a tenth). */
export async function pageBody(text: string): Promise<PageBody> {
  const plain = Buffer.from(text);
  return { plain, gzip: await gzip(plain) };
}

/** The artifact row's change stamp: publishing a version or adding a file changes it. */
const readStamp = precompiled((db: Kysely<MetadataSchema>, uid: string) =>
  db
    .selectFrom("library_artifacts as a")
    .select((eb) => [
      "a.display_name",
      "a.update_time",
      "a.version_count",
      eb
        .selectFrom("library_files as f")
        .select((f) => f.fn.countAll<number | string>().as("n"))
        .whereRef("f.artifact_uid", "=", "a.uid")
        .as("files"),
    ])
    .where("a.uid", "=", uid),
);

const gzip = promisify(gzipCallback);

/** Cached pages kept at most, by bytes: a 500-version page is some 200 KiB in both formats. */
const maxCacheBytes = 64 * 1024 * 1024;

/**
 * Project pages cached in memory per artifact. Every request reads the artifact's stamp (one
 * indexed row and an index-only count of its files), so a publish through any replica is seen
 * at once; only when the stamp is unchanged are the cached bytes served, and concurrent
 * requests for a changed page share one rendering.
 */
export function createSimplePages(db: Kysely<MetadataSchema>) {
  const cache = createStampedCache<RenderedPage>({
    maxBytes: maxCacheBytes,
    sizeOf: (page) => page.size,
  });

  /** The project page of `project` (normalised) in organisation `orgUid`, or undefined. */
  return async function projectPage(
    orgUid: string,
    project: string,
  ): Promise<RenderedPage | undefined> {
    const uid = artifactUid("python", orgUid, project);
    const [row] = await readStamp(db, uid);
    if (!row) return undefined;
    const stamp = `${row.update_time}|${row.version_count}|${row.files}`;
    return cache.get(uid, stamp, async () => {
      const page = await readPage(db, uid, row.display_name);
      const [json, html] = await Promise.all([
        pageBody(projectJson(page)),
        pageBody(projectHtml(page)),
      ]);
      const etag = `"${createHash("sha256").update(stamp).update(uid).digest("base64url").slice(0, 27)}"`;
      const size = [json, html].reduce((n, b) => n + b.plain.length + b.gzip.length, 0);
      return { stamp, etag, json, html, size };
    });
  };
}

/** Reads a project's versions and files, lowest version first. */
async function readPage(
  db: Kysely<MetadataSchema>,
  uid: string,
  name: string,
): Promise<SimplePage> {
  const versions = await db
    .selectFrom("library_versions")
    .select("version")
    .where("artifact_uid", "=", uid)
    .orderBy("version_rank")
    .execute();
  const files = await db
    .selectFrom("library_files as f")
    .innerJoin("library_versions as v", "v.uid", "f.version_uid")
    .select(["v.version", "f.filename", "f.digest", "f.size", "f.metadata", "f.create_time"])
    .where("f.artifact_uid", "=", uid)
    .orderBy("v.version_rank")
    .orderBy("f.filename")
    .execute();
  const project = normalizePythonName(name);
  return {
    project,
    name,
    versions: versions.map((v) => v.version),
    files: files.map((f): SimpleFile => {
      const metadata = JSON.parse(f.metadata) as { requires_python?: string };
      return {
        filename: f.filename,
        url: `../../files/${encodeURIComponent(project)}/${encodeURIComponent(f.version)}/${encodeURIComponent(f.filename)}`,
        sha256: f.digest.slice("sha256:".length),
        size: Number(f.size),
        requiresPython: metadata.requires_python || undefined,
        uploadTime: f.create_time,
      };
    }),
  };
}
