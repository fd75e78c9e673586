import type { Kysely } from "kysely";
import type { Grants } from "../auth/index.ts";
import { now } from "../rpc/index.ts";
import { type MetadataSchema, precompiled, type ReposTable } from "../store/metadata/index.ts";
import { newChildUid } from "../uidp/index.ts";

/** A registry action, as in Docker token scopes (`repository:<name>:<actions>`). */
export type RegistryAction = "pull" | "push" | "delete";

/** Every action, in the order scopes list them. */
export const registryActions: readonly RegistryAction[] = ["pull", "push", "delete"];

/** Capabilities each action needs on the repository (or, for push to a new repo, repo.create). */
const actionCapabilities: Record<RegistryAction, readonly string[]> = {
  pull: ["repo.blobs.get", "manifest.list", "tag.list"],
  push: ["repo.blobs.get", "manifest.create", "tag.create"],
  delete: ["manifest.delete", "tag.delete"],
};

/** A registry path `<org>/<repo name>` resolved against the store. */
export interface RepoPath {
  /** The whole path, as clients name it. */
  path: string;
  orgName: string;
  /** The repo name inside the organisation (may contain `/`). */
  repoName: string;
  /** The organisation's root group uid, when it exists. */
  orgUid: string | undefined;
  /** The repo, when it exists. */
  repo: ReposTable | undefined;
}

const orgUidOf = (db: Kysely<MetadataSchema>, name: string) =>
  db.selectFrom("groups").select("uid").where("parent_uid", "=", "").where("name", "=", name);
const orgByName = precompiled(orgUidOf);

/** The uid of the organisation (root group) named `name`, if it exists. */
export async function organisationUid(
  db: Kysely<MetadataSchema>,
  name: string,
): Promise<string | undefined> {
  const [org] = await orgByName(db, name);
  return org?.uid;
}
const repoByPath = precompiled((db, orgName: string, repoName: string) =>
  db
    .selectFrom("repos")
    .selectAll()
    .where("root_uid", "=", orgUidOf(db, orgName))
    .where("name", "=", repoName),
);

/**
 * Splits `path` at its first `/` and looks up the organisation and the repo: one query when the
 * repo exists (the organisation as a scalar subquery, which SQLite runs several times faster
 * than the equivalent join), a second one for the organisation when it does not.
 */
export async function resolveRepoPath(db: Kysely<MetadataSchema>, path: string): Promise<RepoPath> {
  const slash = path.indexOf("/");
  const orgName = slash < 0 ? path : path.slice(0, slash);
  const repoName = slash < 0 ? "" : path.slice(slash + 1);
  const [repo] = repoName ? await repoByPath(db, orgName, repoName) : [];
  if (repo) return { path, orgName, repoName, orgUid: repo.root_uid, repo };
  const [org] = await orgByName(db, orgName);
  return { path, orgName, repoName, orgUid: org?.uid, repo: undefined };
}

/**
 * The actions `grants` allow on `target`: on an existing repo, each action whose capabilities
 * are all held at the repo; on a missing repo of an existing organisation, `push` when the caller
 * may create repos in the organisation (pushing creates it) and `pull` when it could pull there.
 */
export function allowedActions(grants: Grants, target: RepoPath): Set<RegistryAction> {
  const at = target.repo?.uid ?? target.orgUid;
  const allowed = new Set<RegistryAction>();
  if (!at || !target.repoName) return allowed;
  for (const action of registryActions) {
    const needs = !target.repo && action === "push" ? ["repo.create"] : actionCapabilities[action];
    if (needs.every((capability) => grants.can(capability, at))) allowed.add(action);
  }
  return allowed;
}

/**
 * The repo at `target`, created under the organisation when missing (a push to a new path,
 * DESIGN §6). Concurrent first pushes create it once.
 */
export async function ensureRepo(
  db: Kysely<MetadataSchema>,
  target: RepoPath,
  onCreated?: (repo: ReposTable) => Promise<void>,
): Promise<ReposTable> {
  if (target.repo) return target.repo;
  const orgUid = target.orgUid;
  if (!orgUid) throw new Error(`organisation ${target.orgName} does not exist`);
  const time = now();
  const [created] = await db
    .insertInto("repos")
    .values({
      uid: newChildUid(orgUid),
      parent_uid: orgUid,
      root_uid: orgUid,
      name: target.repoName,
      description: "",
      readme: "",
      create_time: time,
      update_time: time,
    })
    .onConflict((oc) => oc.columns(["root_uid", "name"]).doNothing())
    .returningAll()
    .execute();
  // Only the request whose insert made the repo reports it; a concurrent one finds it made.
  if (created) {
    await onCreated?.(created);
    return created;
  }
  return db
    .selectFrom("repos")
    .selectAll()
    .where("root_uid", "=", orgUid)
    .where("name", "=", target.repoName)
    .executeTakeFirstOrThrow();
}
