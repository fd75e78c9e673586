import type { Kysely } from "kysely";
import type { MetadataSchema, ReposTable } from "../store/metadata/index.ts";
import { type EventActor, recordEvent } from "./record-event.ts";

/** Where a registry request came from, for the push and pull bodies (reference §7.4). */
export interface RegistryClient {
  actor: EventActor;
  remoteAddress: string;
  userAgent: string;
}

/**
 * The repo an event is about: the subject of push and pull events, whose Ce-Group is its
 * organisation (reference §7.4); tag events go to the repo's own group, as from the Tags API.
 */
export type EventRepo = Pick<ReposTable, "uid" | "parent_uid" | "root_uid">;

/** A tag row as the Tag message renders it (lading.registry.v2.Tag, protojson). */
export interface EventTag {
  uid: string;
  name: string;
  digest: string;
  deprecated: number | boolean;
  create_time: string;
  update_time: string;
}

/** `2026-11-24T00:13:34.123`: a civil datetime in UTC, without zone (reference §7.4 `when`). */
export const civilTime = (time: string) => time.replace(/Z$/, "");

/** Records `dev.lading.registry.push.v1` for a manifest PUT, in the caller's transaction. */
export function recordPush(
  db: Kysely<MetadataSchema>,
  registryUrl: string,
  push: {
    repo: EventRepo;
    /** The repository path, `<org>/<repo>`. */
    repository: string;
    tag: string;
    digest: string;
    mediaType: string;
    client: RegistryClient;
    /** The digest the tag pointed at before, "" when it is new or no tag was pushed. */
    tagPreviousDigest: string;
  },
): Promise<void> {
  const time = new Date().toISOString();
  const body: Record<string, string> = {
    repository: push.repository,
    repo_id: push.repo.uid,
    digest: push.digest,
    type: "manifest",
    when: civilTime(time),
    remote_address: push.client.remoteAddress,
    user_agent: push.client.userAgent,
  };
  if (push.tag !== "") body.tag = push.tag;
  if (push.tagPreviousDigest !== "") body.tag_previous_digest = push.tagPreviousDigest;
  return recordEvent(db, {
    type: "dev.lading.registry.push.v1",
    source: registryUrl,
    subject: push.repo.uid,
    groupUid: push.repo.root_uid,
    actor: push.client.actor,
    body,
    extensions: { digest: push.digest, mediatype: push.mediaType },
    time,
  });
}

/**
 * Records a tag's creation, move or removal by the registry protocol, with the body the Tags
 * API gives the same change (the Tag for created and updated, `{uid}` for deleted).
 */
export function recordTagChange(
  db: Kysely<MetadataSchema>,
  registryUrl: string,
  change: {
    verb: "created" | "updated" | "deleted";
    repo: EventRepo;
    tag: EventTag;
    actor: EventActor;
  },
): Promise<void> {
  const { tag } = change;
  const deleted = change.verb === "deleted";
  return recordEvent(db, {
    type: `dev.lading.registry.tag.${change.verb}.v1`,
    source: registryUrl,
    subject: tag.uid,
    groupUid: change.repo.parent_uid,
    actor: change.actor,
    body: deleted
      ? { uid: tag.uid }
      : {
          uid: tag.uid,
          name: tag.name,
          digest: tag.digest,
          deprecated: Boolean(tag.deprecated),
          createTime: tag.create_time,
          updateTime: tag.update_time,
        },
    bodyType: deleted ? "lading.registry.v2.DeleteTagRequest" : "lading.registry.v2.Tag",
    extensions: deleted ? {} : { digest: tag.digest },
  });
}

/** Records the removal of a manifest by digest (its tags' removals are recorded apart). */
export function recordManifestDeleted(
  db: Kysely<MetadataSchema>,
  registryUrl: string,
  removal: { repo: EventRepo; repository: string; digest: string; actor: EventActor },
): Promise<void> {
  return recordEvent(db, {
    type: "dev.lading.registry.manifest.deleted.v1",
    source: registryUrl,
    subject: removal.repo.uid,
    groupUid: removal.repo.root_uid,
    actor: removal.actor,
    body: { repository: removal.repository, repo_id: removal.repo.uid, digest: removal.digest },
    extensions: { digest: removal.digest },
  });
}

/**
 * Records `dev.lading.registry.repo.created.v1` for a repo a push created, with the body the
 * Repos API gives a create (lading.registry.v2.Repo).
 */
export function recordRepoCreated(
  db: Kysely<MetadataSchema>,
  registryUrl: string,
  repo: ReposTable,
  actor: EventActor,
): Promise<void> {
  return recordEvent(db, {
    type: "dev.lading.registry.repo.created.v1",
    source: registryUrl,
    subject: repo.uid,
    groupUid: repo.parent_uid,
    actor,
    body: {
      uid: repo.uid,
      name: repo.name,
      description: repo.description,
      readme: repo.readme,
      createTime: repo.create_time,
      updateTime: repo.update_time,
    },
    bodyType: "lading.registry.v2.Repo",
  });
}

/**
 * Records `dev.lading.registry.blob.deleted.v1` for a blob DELETE that unlinked `digest` from
 * a repo (the content stays while other repos link it). Named like manifest.deleted, with the
 * push body's request fields: subject the repo, Ce-Group its organisation.
 */
export function recordBlobDeleted(
  db: Kysely<MetadataSchema>,
  registryUrl: string,
  removal: { repo: EventRepo; repository: string; digest: string; client: RegistryClient },
): Promise<void> {
  const time = new Date().toISOString();
  return recordEvent(db, {
    type: "dev.lading.registry.blob.deleted.v1",
    source: registryUrl,
    subject: removal.repo.uid,
    groupUid: removal.repo.root_uid,
    actor: removal.client.actor,
    body: {
      repository: removal.repository,
      repo_id: removal.repo.uid,
      digest: removal.digest,
      type: "blob",
      when: civilTime(time),
      remote_address: removal.client.remoteAddress,
      user_agent: removal.client.userAgent,
    },
    extensions: { digest: removal.digest },
    time,
  });
}
