import { create } from "@bufbuild/protobuf";
import { invalidArgument } from "../errors/index.ts";
import { type Tag, TagSchema, TagsService } from "../gen/lading/registry/v2/tags_pb.js";
import {
  type BoundService,
  bindService,
  defineResource,
  updatePaths,
  Violations,
} from "../rpc/index.ts";
import { isDigest } from "../store/blobs/index.ts";
import type { TagsTable } from "../store/metadata/index.ts";
import {
  isTagName,
  type RegistryContext,
  registryDomain,
  registrySortFields,
} from "./registry-context.ts";
import { repoResource } from "./repos-service.ts";
import { parseExpiry } from "./tag-expiry.ts";
import { moveTag, recordTagDeletion } from "./tag-history.ts";
import { immutableHold, immutableTagError } from "./tag-policies.ts";
import { restoreTag } from "./tag-restore.ts";

/** Tags as the API lists and gets them. */
export const tagResource = defineResource({
  table: "tags",
  domain: registryDomain,
  type: "tag",
  see: "tag.list",
  sortFields: registrySortFields,
  toMessage: tagFromRow,
});

const fields = {
  updatable: ["deprecated", "expire_time"],
  outputOnly: ["uid", "create_time", "update_time", "pull_time"],
};

/** Converts a stored row to the API message. */
export function tagFromRow(row: TagsTable): Tag {
  return create(TagSchema, {
    uid: row.uid,
    name: row.name,
    digest: row.digest,
    deprecated: Number(row.deprecated) === 1,
    createTime: row.create_time,
    updateTime: row.update_time,
    expireTime: row.expire_time ?? "",
    pullTime: row.pull_time ?? "",
  });
}

/** The TagsService implementation. */
export function createTagsService(ctx: RegistryContext): BoundService {
  const { db } = ctx;
  return bindService(TagsService, {
    async listTags(req, call) {
      const page = await tagResource.list(ctx, call, req, { name: req.name, digest: req.digest });
      return { ...page, tags: page.items };
    },

    async getTag(req, call) {
      return tagResource.get(ctx, call, req.uid);
    },

    async createTag(req, call) {
      const tag = req.tag ?? create(TagSchema);
      const v = new Violations().uid("parent", req.parent);
      if (!isTagName(tag.name))
        v.add("name", "must match the pattern ^[a-zA-Z0-9_][a-zA-Z0-9._-]{0,127}$");
      if (!isDigest(tag.digest))
        v.add("digest", "must be sha256:<64 hex> or sha512:<128 hex> in lowercase");
      if (!v.empty) throw invalidArgument(registryDomain, v.list);
      const repo = await repoResource.load(ctx, call, req.parent, {
        field: "parent",
        act: "tag.create",
      });
      const manifest = await db
        .selectFrom("manifests")
        .select("digest")
        .where("repo_uid", "=", repo.uid)
        .where("digest", "=", tag.digest)
        .executeTakeFirst();
      if (!manifest) {
        throw invalidArgument(registryDomain, [
          { field: "digest", description: "must be the digest of a manifest stored in the repo" },
        ]);
      }
      const current = await db
        .selectFrom("tags")
        .selectAll()
        .where("parent_uid", "=", repo.uid)
        .where("name", "=", tag.name)
        .executeTakeFirst();
      if (current?.digest === tag.digest) return tagFromRow(current);
      if (current) {
        const hold = await immutableHold(db, repo.uid, [tag.name]);
        if (hold) throw immutableTagError(hold, "moved");
      }
      return tagFromRow(await moveTag(db, repo.uid, tag.name, tag.digest));
    },

    async updateTag(req, call) {
      const tag = req.tag ?? create(TagSchema);
      const row = await tagResource.load(ctx, call, tag.uid, {
        field: "tag.uid",
        act: "tag.update",
      });
      const paths = updatePaths(registryDomain, req.updateMask, call, fields, () =>
        [tag.deprecated && "deprecated", tag.expireTime && "expire_time"].filter(
          (p): p is string => !!p,
        ),
      );
      const changes: { deprecated?: number; expire_time?: string | null } = {};
      if (paths.has("deprecated")) changes.deprecated = tag.deprecated ? 1 : 0;
      if (paths.has("expire_time")) {
        const expiry = tag.expireTime ? parseExpiry(tag.expireTime, new Date()) : {};
        if (expiry.error) {
          throw invalidArgument(registryDomain, [
            { field: "tag.expire_time", description: expiry.error },
          ]);
        }
        changes.expire_time = expiry.value ?? null;
      }
      if (Object.keys(changes).length === 0) return tagFromRow(row);
      await db.updateTable("tags").set(changes).where("uid", "=", row.uid).execute();
      return tagFromRow({ ...row, ...changes });
    },

    async deleteTag(req, call) {
      const row = await tagResource.load(ctx, call, req.uid, { act: "tag.delete" });
      const hold = await immutableHold(db, row.parent_uid, [row.name]);
      if (hold) throw immutableTagError(hold, "deleted");
      await db.deleteFrom("tags").where("uid", "=", row.uid).execute();
      await recordTagDeletion(db, row);
      return {};
    },

    async restoreTag(req, call) {
      return tagFromRow(await restoreTag(ctx, call, req));
    },
  });
}
