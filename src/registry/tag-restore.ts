import type { Kysely } from "kysely";
import { failedPrecondition, invalidArgument, notFound } from "../errors/index.ts";
import type { RestoreTagRequest } from "../gen/lading/registry/v2/tags_pb.js";
import { type Call, requireParentGroup, Violations } from "../rpc/index.ts";
import { isDigest } from "../store/blobs/index.ts";
import type {
  DeletedReposTable,
  MetadataSchema,
  ReposTable,
  TagsTable,
} from "../store/metadata/index.ts";
import { isTagName, type RegistryContext, registryDomain } from "./registry-context.ts";
import { repoResource } from "./repos-service.ts";
import { moveTag, pointingActions } from "./tag-history.ts";
import { immutableHold, immutableTagError } from "./tag-policies.ts";

const RFC3339 = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

/**
 * RestoreTag: points a tag, live or deleted, back at a digest from its history, when that
 * manifest is still kept and no immutability rule holds the tag. The move is recorded as a
 * `restore` history record; a deleted tag restored by its uid gets that uid back.
 */
export async function restoreTag(
  ctx: RegistryContext,
  call: Call,
  req: RestoreTagRequest,
): Promise<TagsTable> {
  const { db } = ctx;
  const v = new Violations().uid("uid", req.uid);
  if (req.digest && req.time) v.add("time", "give digest or time, not both");
  if (!req.digest && !req.time) v.add("digest", "give the digest or the time to restore to");
  if (req.digest && !isDigest(req.digest))
    v.add("digest", "must be sha256:<64 hex> or sha512:<128 hex> in lowercase");
  if (req.time && !(RFC3339.test(req.time) && Number.isFinite(Date.parse(req.time))))
    v.add("time", "must be an RFC 3339 time, e.g. 2026-11-01T00:00:00Z");
  if (req.repository && !req.name) v.add("name", "give the tag name with repository");
  if (req.name && !isTagName(req.name))
    v.add("name", "must match the pattern ^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$");
  if (!v.empty) throw invalidArgument(registryDomain, v.list);

  const target = await resolveTarget(db, req);
  if (!target) throw notFound(registryDomain, "tag", req.uid);
  const repo = target.deleted
    ? await reviveRepo(db, call, target.deleted)
    : await repoResource.load(ctx, call, target.repoUid, { field: "uid", act: "tag.create" });
  const digest = await digestToRestore(db, repo.uid, target.name, req);
  const kept = await db
    .selectFrom("manifests")
    .select("digest")
    .where("repo_uid", "=", repo.uid)
    .where("digest", "=", digest)
    .executeTakeFirst();
  if (!kept) {
    const description = `manifest ${digest} is no longer kept in the repo; it cannot be restored`;
    throw failedPrecondition(registryDomain, description, [
      { type: "MANIFEST_GONE", subject: digest, description },
    ]);
  }
  const hold = await immutableHold(db, repo.uid, [target.name]);
  if (hold) throw immutableTagError(hold, "restored");
  const current = await db
    .selectFrom("tags")
    .selectAll()
    .where("parent_uid", "=", repo.uid)
    .where("name", "=", target.name)
    .executeTakeFirst();
  if (current?.digest === digest) return current;
  return moveTag(db, repo.uid, target.name, digest, { action: "restore", uid: target.tagUid });
}

/** What a restore acts on: a repo (deleted, within the window, or not) and a tag name. */
interface Target {
  repoUid: string;
  name: string;
  /** The uid a deleted tag had. */
  tagUid?: string;
  /** The repo, when it was deleted. */
  deleted?: DeletedReposTable;
}

/** The repo and tag name a request names, and the uid a deleted tag had. */
async function resolveTarget(
  db: Kysely<MetadataSchema>,
  req: RestoreTagRequest,
): Promise<Target | undefined> {
  if (req.name && req.repository) {
    const live = await db
      .selectFrom("repos")
      .select("uid")
      .where("root_uid", "=", req.uid)
      .where("name", "=", req.repository)
      .executeTakeFirst();
    if (live) return { repoUid: live.uid, name: req.name };
    const deleted = await db
      .selectFrom("deleted_repos")
      .selectAll()
      .where("root_uid", "=", req.uid)
      .where("name", "=", req.repository)
      .orderBy("delete_time", "desc")
      .limit(1)
      .executeTakeFirst();
    return deleted && { repoUid: deleted.uid, name: req.name, deleted };
  }
  if (req.name) {
    const repo = await db
      .selectFrom("repos")
      .select("uid")
      .where("uid", "=", req.uid)
      .executeTakeFirst();
    if (repo) return { repoUid: repo.uid, name: req.name };
    const deleted = await deletedRepo(db, req.uid);
    if (deleted) return { repoUid: deleted.uid, name: req.name, deleted };
  }
  const tag = await db
    .selectFrom("tags")
    .select(["parent_uid", "name"])
    .where("uid", "=", req.uid)
    .executeTakeFirst();
  if (tag) return { repoUid: tag.parent_uid, name: tag.name };
  const past = await db
    .selectFrom("tag_history")
    .select(["repo_uid", "tag"])
    .where("tag_uid", "=", req.uid)
    .limit(1)
    .executeTakeFirst();
  if (!past) return undefined;
  const deleted = await deletedRepo(db, past.repo_uid);
  return { repoUid: past.repo_uid, name: past.tag, tagUid: req.uid, deleted };
}

function deletedRepo(db: Kysely<MetadataSchema>, uid: string) {
  return db.selectFrom("deleted_repos").selectAll().where("uid", "=", uid).executeTakeFirst();
}

/**
 * Brings a deleted repo back under its uid, in the restore's transaction: the caller needs
 * tag.create on the group it was in, and no live repo may have taken its path since.
 */
async function reviveRepo(
  db: Kysely<MetadataSchema>,
  call: Call,
  deleted: DeletedReposTable,
): Promise<ReposTable> {
  await requireParentGroup(db, call, deleted.parent_uid, "tag.create", registryDomain);
  const { delete_time: _, ...repo } = deleted;
  const taken = await db
    .selectFrom("repos")
    .select("uid")
    .where("root_uid", "=", repo.root_uid)
    .where("name", "=", repo.name)
    .executeTakeFirst();
  if (taken) {
    const description = `another repo named "${repo.name}" exists now; the deleted one cannot come back`;
    throw failedPrecondition(registryDomain, description, [
      { type: "REPO_PATH_TAKEN", subject: repo.name, description },
    ]);
  }
  await db.insertInto("repos").values(repo).execute();
  await db.deleteFrom("deleted_repos").where("uid", "=", repo.uid).execute();
  return repo;
}

/** The digest given, if the tag ever pointed at it, or the one it pointed at the time given. */
async function digestToRestore(
  db: Kysely<MetadataSchema>,
  repoUid: string,
  name: string,
  req: RestoreTagRequest,
): Promise<string> {
  const history = db
    .selectFrom("tag_history")
    .select(["digest", "action"])
    .where("repo_uid", "=", repoUid)
    .where("tag", "=", name);
  if (req.digest) {
    const found = await history
      .where("digest", "=", req.digest)
      .where("action", "in", pointingActions)
      .limit(1)
      .executeTakeFirst();
    if (found) return req.digest;
    const description = `tag "${name}" never pointed to ${req.digest}`;
    throw failedPrecondition(registryDomain, description, [
      { type: "NOT_IN_HISTORY", subject: req.digest, description },
    ]);
  }
  const at = new Date(Date.parse(req.time)).toISOString();
  const record = await history
    .where("update_time", "<=", at)
    .orderBy("update_time", "desc")
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  if (record && pointingActions.includes(record.action ?? "move")) return record.digest;
  const description = `tag "${name}" pointed to no digest at ${at}`;
  throw failedPrecondition(registryDomain, description, [
    { type: "NOT_IN_HISTORY", subject: at, description },
  ]);
}
