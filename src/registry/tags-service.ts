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
import { moveTag } from "./tag-history.ts";

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
  updatable: ["deprecated"],
  outputOnly: ["uid", "create_time", "update_time"],
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
      return tagFromRow(await moveTag(db, repo.uid, tag.name, tag.digest));
    },

    async updateTag(req, call) {
      const tag = req.tag ?? create(TagSchema);
      const row = await tagResource.load(ctx, call, tag.uid, {
        field: "tag.uid",
        act: "tag.update",
      });
      const paths = updatePaths(registryDomain, req.updateMask, call, fields, () =>
        tag.deprecated ? ["deprecated"] : [],
      );
      if (!paths.has("deprecated")) return tagFromRow(row);
      const deprecated = tag.deprecated ? 1 : 0;
      await db.updateTable("tags").set({ deprecated }).where("uid", "=", row.uid).execute();
      return tagFromRow({ ...row, deprecated });
    },

    async deleteTag(req, call) {
      const row = await tagResource.load(ctx, call, req.uid, { act: "tag.delete" });
      await db.deleteFrom("tags").where("uid", "=", row.uid).execute();
      return {};
    },
  });
}
