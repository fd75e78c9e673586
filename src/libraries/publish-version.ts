import type { Kysely } from "kysely";
import { type EventActor, recordEvent } from "../events/index.ts";
import { now } from "../rpc/index.ts";
import { type MetadataSchema, runInTransaction } from "../store/metadata/index.ts";
import { artifactUid, type Ecosystem, versionUid } from "./ecosystems.ts";
import { LibraryError } from "./library-error.ts";
import { rankVersions } from "./rank-versions.ts";
import type { StoredLibraryFile } from "./store-library-file.ts";

/** One file of a publish, already in the blob store (storeLibraryFile). */
export interface PublishedFile {
  /** Validated with parseFileName. */
  filename: string;
  stored: StoredLibraryFile;
  contentType: string;
  metadata?: Record<string, unknown>;
}

/** A version (or, for Maven, more files of one) to make visible. */
export interface PublishRequest {
  orgUid: string;
  ecosystem: Ecosystem;
  /** Canonical name (see LibraryArtifactsTable.name). */
  name: string;
  displayName: string;
  version: string;
  description: string;
  metadata?: Record<string, unknown>;
  files: PublishedFile[];
  /**
   * Maven deploys a version file by file: add to an existing version instead of refusing it.
   * A file name that exists is refused either way.
   */
  addToExisting?: boolean;
  /** npm: dist-tags to point at this version, set in the same transaction. */
  distTags?: readonly string[];
  /** Who published, for the event. */
  actor: EventActor;
  /** The repository URL, the event's source. */
  source: string;
}

/** What a publish made visible. */
export interface PublishResult {
  artifactUid: string;
  versionUid: string;
  /** False when files were added to an existing version. */
  createdVersion: boolean;
}

/**
 * Makes a version and its files visible in one transaction: the artifact (created on first
 * publish), the version (409 when it exists, as every ecosystem's registry answers), the files,
 * the version ranks, the artifact's summary columns and a `dev.lading.libraries.publish.v1`
 * event (`dev.lading.libraries.file.added.v1` for files added to a version). Either all of it
 * commits or none.
 */
export function publishVersion(
  db: Kysely<MetadataSchema>,
  request: PublishRequest,
): Promise<PublishResult> {
  return runInTransaction(db, async (trx) => {
    const time = now();
    const uid = artifactUid(request.ecosystem, request.orgUid, request.name);
    await trx
      .insertInto("library_artifacts")
      .values({
        uid,
        parent_uid: request.orgUid,
        ecosystem: request.ecosystem,
        name: request.name,
        display_name: request.displayName,
        description: request.description,
        latest_version: "",
        version_count: 0,
        dist_tags: "{}",
        create_time: time,
        update_time: time,
      })
      .onConflict((oc) => oc.column("uid").doNothing())
      .execute();
    const vUid = versionUid(uid, request.version);
    const existing = await trx
      .selectFrom("library_versions")
      .select("uid")
      .where("uid", "=", vUid)
      .executeTakeFirst();
    if (existing && !request.addToExisting) {
      throw new LibraryError(409, `${request.displayName} ${request.version} is already published`);
    }
    const size = request.files.reduce((sum, f) => sum + f.stored.size, 0);
    if (existing) {
      // A file that carries a description (a pom after its jar) gives it to the version, and
      // to the artifact when this is its latest version.
      const { description } = request;
      await trx
        .updateTable("library_versions")
        .set((eb) => ({
          size_bytes: eb("size_bytes", "+", size),
          update_time: time,
          ...(description === "" ? {} : { description }),
        }))
        .where("uid", "=", vUid)
        .execute();
      if (description !== "") {
        await trx
          .updateTable("library_artifacts")
          .set({ description })
          .where("uid", "=", uid)
          .where("latest_version", "=", request.version)
          .execute();
      }
    } else {
      await trx
        .insertInto("library_versions")
        .values({
          uid: vUid,
          artifact_uid: uid,
          version: request.version,
          version_rank: 0,
          description: request.description,
          size_bytes: size,
          metadata: JSON.stringify(request.metadata ?? {}),
          create_time: time,
          update_time: time,
        })
        .execute();
    }
    if (request.files.length > 0) {
      const names = request.files.map((f) => f.filename);
      const taken = await trx
        .selectFrom("library_files")
        .select("filename")
        .where("artifact_uid", "=", uid)
        .where("filename", "in", names)
        .execute();
      if (taken.length > 0) {
        throw new LibraryError(409, `${taken[0].filename} is already published`);
      }
      await trx
        .insertInto("library_files")
        .values(
          request.files.map((f) => ({
            artifact_uid: uid,
            version_uid: vUid,
            filename: f.filename,
            digest: f.stored.digest,
            size: f.stored.size,
            sha1: f.stored.sha1,
            md5: f.stored.md5,
            sha512: f.stored.sha512,
            content_type: f.contentType,
            metadata: JSON.stringify(f.metadata ?? {}),
            create_time: time,
          })),
        )
        .execute();
    }
    if (!existing) await rerank(trx, uid, request, time);
    if (request.distTags && request.distTags.length > 0) {
      // rerank wrote the artifact row, which stays locked (PostgreSQL) until commit: a
      // concurrent dist-tag change waits instead of losing this one.
      const row = await trx
        .selectFrom("library_artifacts")
        .select("dist_tags")
        .where("uid", "=", uid)
        .executeTakeFirstOrThrow();
      const tags = JSON.parse(row.dist_tags) as Record<string, string>;
      for (const tag of request.distTags) tags[tag] = request.version;
      await trx
        .updateTable("library_artifacts")
        .set({ dist_tags: JSON.stringify(tags), update_time: time })
        .where("uid", "=", uid)
        .execute();
    }
    if (!existing || request.files.length > 0) {
      await recordEvent(trx, {
        // A new version is a publish; more files for one (Maven's file by file, a Python
        // sdist after its wheel) are files added, so a mirror learns of every file.
        type: existing ? "dev.lading.libraries.file.added.v1" : "dev.lading.libraries.publish.v1",
        source: request.source,
        subject: uid,
        groupUid: request.orgUid,
        actor: request.actor,
        body: {
          artifact_id: uid,
          ecosystem: request.ecosystem,
          name: request.displayName,
          version: request.version,
          files: request.files.map((f) => ({
            filename: f.filename,
            digest: f.stored.digest,
            size: String(f.stored.size),
          })),
          when: time,
        },
      });
    }
    return { artifactUid: uid, versionUid: vUid, createdVersion: !existing };
  });
}

/** Re-ranks the artifact's versions and refreshes its summary after a new version. */
async function rerank(
  trx: Kysely<MetadataSchema>,
  uid: string,
  request: PublishRequest,
  time: string,
): Promise<void> {
  const rows = await trx
    .selectFrom("library_versions")
    .select(["uid", "version", "version_rank", "description"])
    .where("artifact_uid", "=", uid)
    .execute();
  const order = rankVersions(
    request.ecosystem,
    rows.map((r) => r.version),
  );
  const rankOf = new Map(order.map((version, rank) => [version, rank]));
  for (const row of rows) {
    const rank = rankOf.get(row.version) ?? 0;
    if (row.uid !== versionUid(uid, request.version) && Number(row.version_rank) === rank) continue;
    await trx
      .updateTable("library_versions")
      .set({ version_rank: rank })
      .where("uid", "=", row.uid)
      .execute();
  }
  const latest = order[order.length - 1] ?? "";
  const latestRow = rows.find((r) => r.version === latest);
  await trx
    .updateTable("library_artifacts")
    .set({
      latest_version: latest,
      description: latestRow?.description ?? request.description,
      version_count: rows.length,
      update_time: time,
    })
    .where("uid", "=", uid)
    .execute();
}
