import { create } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import { alreadyExists, failedPrecondition, invalidArgument } from "../errors/index.ts";
import { type Repo, RepoSchema, ReposService } from "../gen/lading/registry/v2/repos_pb.js";
import {
  type BoundService,
  bindService,
  defineResource,
  now,
  requireParentGroup,
  updatePaths,
  Violations,
} from "../rpc/index.ts";
import {
  isUniqueViolation,
  type MetadataSchema,
  type ReposTable,
} from "../store/metadata/index.ts";
import { newChildUid, rootOf } from "../uidp/index.ts";
import {
  isRepoName,
  maxReadmeBytes,
  maxRepoPathLength,
  type RegistryContext,
  registryDomain,
  registrySortFields,
} from "./registry-context.ts";

/** Repos as the API lists and gets them. */
export const repoResource = defineResource({
  table: "repos",
  domain: registryDomain,
  type: "repo",
  see: "repo.list",
  sortFields: registrySortFields,
  toMessage: repoFromRow,
});

const fields = {
  updatable: ["description", "readme"],
  outputOnly: ["uid", "create_time", "update_time"],
};

/** Converts a stored row to the API message. */
export function repoFromRow(row: ReposTable): Repo {
  return create(RepoSchema, {
    uid: row.uid,
    name: row.name,
    description: row.description,
    readme: row.readme,
    createTime: row.create_time,
    updateTime: row.update_time,
  });
}

/**
 * A group child check for the GroupsService: a group with repos directly under it cannot be
 * deleted (spec Errors rule 2: "cannot delete group with child repos").
 */
export function groupRepoCheck(
  db: Kysely<MetadataSchema>,
): (groupUid: string) => Promise<string | undefined> {
  return async (groupUid) => {
    const repo = await db
      .selectFrom("repos")
      .select("uid")
      .where("parent_uid", "=", groupUid)
      .limit(1)
      .executeTakeFirst();
    return repo ? "child repos" : undefined;
  };
}

/** The ReposService implementation. */
export function createReposService(ctx: RegistryContext): BoundService {
  const { db } = ctx;
  return bindService(ReposService, {
    async listRepos(req, call) {
      const page = await repoResource.list(ctx, call, req, { name: req.name });
      return { ...page, repos: page.items };
    },

    async getRepo(req, call) {
      return repoResource.get(ctx, call, req.uid);
    },

    async createRepo(req, call) {
      const repo = req.repo ?? create(RepoSchema);
      const v = new Violations().uid("parent", req.parent);
      if (!isRepoName(repo.name))
        v.add(
          "name",
          "must be OCI path components ([a-z0-9]+ joined by ., _, __ or -) joined by /",
        );
      v.description("description", repo.description);
      checkReadme(v, repo.readme);
      if (!v.empty) throw invalidArgument(registryDomain, v.list);
      await requireParentGroup(db, call, req.parent, "repo.create", registryDomain);
      const rootUid = rootOf(req.parent);
      const org = await db
        .selectFrom("groups")
        .select("name")
        .where("uid", "=", rootUid)
        .executeTakeFirstOrThrow();
      if (org.name.length + 1 + repo.name.length > maxRepoPathLength) {
        throw invalidArgument(registryDomain, [
          {
            field: "name",
            description: `with the organisation name, must be at most ${maxRepoPathLength} characters`,
          },
        ]);
      }
      const time = now();
      const row: ReposTable = {
        uid: newChildUid(req.parent),
        parent_uid: req.parent,
        root_uid: rootUid,
        name: repo.name,
        description: repo.description,
        readme: repo.readme,
        create_time: time,
        update_time: time,
      };
      await insertUnique(row, org.name);
      return repoFromRow(row);
    },

    async updateRepo(req, call) {
      const repo = req.repo ?? create(RepoSchema);
      const row = await repoResource.load(ctx, call, repo.uid, {
        field: "repo.uid",
        act: "repo.update",
      });
      const paths = updatePaths(registryDomain, req.updateMask, call, fields, () =>
        [repo.description && "description", repo.readme && "readme"].filter(
          (p): p is string => !!p,
        ),
      );
      const v = new Violations();
      if (paths.has("description")) v.description("description", repo.description);
      if (paths.has("readme")) checkReadme(v, repo.readme);
      if (!v.empty) throw invalidArgument(registryDomain, v.list);
      if (paths.size === 0) return repoFromRow(row);
      const changes = {
        ...(paths.has("description") ? { description: repo.description } : {}),
        ...(paths.has("readme") ? { readme: repo.readme } : {}),
        update_time: now(),
      };
      await db.updateTable("repos").set(changes).where("uid", "=", row.uid).execute();
      return repoFromRow({ ...row, ...changes });
    },

    async deleteRepo(req, call) {
      const row = await repoResource.load(ctx, call, req.uid, { act: "repo.delete" });
      await db.transaction().execute(async (trx) => {
        const tag = await trx
          .selectFrom("tags")
          .select("uid")
          .where("parent_uid", "=", row.uid)
          .limit(1)
          .executeTakeFirst();
        if (tag) {
          const description = "cannot delete repo with child tags; delete its tags first";
          throw failedPrecondition(registryDomain, description, [
            { type: "RESOURCE_NOT_EMPTY", subject: "repo", description },
          ]);
        }
        await trx.deleteFrom("manifests").where("repo_uid", "=", row.uid).execute();
        await trx.deleteFrom("repo_blobs").where("repo_uid", "=", row.uid).execute();
        await trx.deleteFrom("manifest_refs").where("repo_uid", "=", row.uid).execute();
        await trx.deleteFrom("tag_history").where("repo_uid", "=", row.uid).execute();
        await trx.deleteFrom("repos").where("uid", "=", row.uid).execute();
      });
      return {};
    },
  });

  async function insertUnique(row: ReposTable, orgName: string) {
    const clash = () =>
      alreadyExists(registryDomain, `a repo named "${orgName}/${row.name}" already exists`);
    const existing = await db
      .selectFrom("repos")
      .select("uid")
      .where("root_uid", "=", row.root_uid)
      .where("name", "=", row.name)
      .executeTakeFirst();
    if (existing) throw clash();
    try {
      await db.insertInto("repos").values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw clash();
      throw error;
    }
  }
}

function checkReadme(v: Violations, readme: string): void {
  if (Buffer.byteLength(readme) > maxReadmeBytes)
    v.add("readme", `must be at most ${maxReadmeBytes} bytes`);
}
