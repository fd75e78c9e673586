import { createHash } from "node:crypto";
import { constants, type ReadStream } from "node:fs";
import { open } from "node:fs/promises";
import { pipeline } from "node:stream/promises";
import type { Kysely } from "kysely";
import type { EventActor } from "../events/index.ts";
import {
  type Ecosystem,
  LibraryError,
  type StoredLibraryFile,
  storeLibraryFile,
} from "../libraries/index.ts";
import type { BlobStore } from "../store/blobs/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";

/**
 * A stream of a file the walk found. The walk resolved symlinks; a file swapped for one since
 * is not followed.
 */
export async function readMirrorFile(path: string, end?: number): Promise<ReadStream> {
  const handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  return handle.createReadStream({ end });
}

/** What importing one file of a mirror folder needs. */
export interface LibraryImportContext {
  db: Kysely<MetadataSchema>;
  blobs: BlobStore;
  orgUid: string;
  /** The registry URL the server answers on: events' Ce-Source is `<it>/<ecosystem>/<org>`. */
  registryUrl: string;
  orgName: string;
  actor: EventActor;
  /** Largest file imported, as the repositories accept. */
  maxFileBytes: number;
}

/** One file of the folder, found by the walk. */
export interface MirrorFile {
  ecosystem: Ecosystem;
  /** Where to read it (a symlink inside the folder resolved). */
  path: string;
  /** Its path relative to the folder, as reported. */
  relative: string;
  size: number;
}

/** What became of one file. */
export type FileOutcome =
  | { kind: "created"; artifact: string; versionCreated: boolean }
  | { kind: "unchanged"; artifact: string }
  | { kind: "conflict"; artifact: string; reason: string }
  | { kind: "refused"; reason: string }
  | { kind: "skipped"; reason: string }
  /** Checksums, metadata and bookkeeping of a Maven repository: counted, not listed. */
  | { kind: "ignored" };

export const refused = (reason: string): FileOutcome => ({ kind: "refused", reason });

/** The event source of an ecosystem's repository, as the door names it. */
export function repositoryUrl(ctx: LibraryImportContext, ecosystem: Ecosystem): string {
  return `${ctx.registryUrl}/${ecosystem}/${ctx.orgName}`;
}

/**
 * Compares a file of the folder with the one already published under the same name: the same
 * bytes are unchanged, other bytes a conflict (a published file is never replaced). Undefined
 * when nothing is published under that name.
 */
export async function comparePublished(
  ctx: LibraryImportContext,
  file: MirrorFile,
  artifactUid: string,
  filename: string,
): Promise<FileOutcome | undefined> {
  const row = await ctx.db
    .selectFrom("library_files")
    .select("digest")
    .where("artifact_uid", "=", artifactUid)
    .where("filename", "=", filename)
    .executeTakeFirst();
  if (!row) return undefined;
  const hash = createHash("sha256");
  await pipeline(await readMirrorFile(file.path), hash);
  if (`sha256:${hash.digest("hex")}` === row.digest) {
    return { kind: "unchanged", artifact: artifactUid };
  }
  return {
    kind: "conflict",
    artifact: artifactUid,
    reason: `${filename} is already published with other bytes (${row.digest}); it is never replaced`,
  };
}

/** Streams a file of the folder into the blob store (never read whole). */
export async function storeMirrorFile(
  ctx: LibraryImportContext,
  file: MirrorFile,
  expected: { sha1?: string; md5?: string; sha256?: string; sha512?: string } = {},
): Promise<StoredLibraryFile> {
  return storeLibraryFile(ctx.blobs, await readMirrorFile(file.path), {
    expected,
    maxBytes: ctx.maxFileBytes,
  });
}

/**
 * Runs a publish; a file name another writer published meanwhile (409) is a conflict, and any
 * other LibraryError refuses the file.
 */
export async function publishOutcome(
  artifact: string,
  publish: () => Promise<{ createdVersion: boolean }>,
): Promise<FileOutcome> {
  try {
    const result = await publish();
    return { kind: "created", artifact, versionCreated: result.createdVersion };
  } catch (error) {
    if (error instanceof LibraryError && error.status === 409) {
      return { kind: "conflict", artifact, reason: error.message };
    }
    if (error instanceof LibraryError) return refused(error.message);
    throw error;
  }
}
