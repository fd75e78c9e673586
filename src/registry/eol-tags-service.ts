import { create } from "@bufbuild/protobuf";
import {
  type EolTag,
  EolTagSchema,
  RegistryService,
} from "../gen/lading/registry/v1/registry_pb.js";
import {
  type BoundService,
  bindService,
  defineResource,
  type ServiceHandlers,
} from "../rpc/index.ts";
import type { TagsTable } from "../store/metadata/index.ts";
import { type RegistryContext, registryDomain } from "./registry-context.ts";
import { listTagHistory } from "./tag-history-rpc.ts";

/** Converts a deprecated tag row to the v1 EolTag. */
export function eolTagFromRow(row: TagsTable): EolTag {
  return create(EolTagSchema, {
    id: row.uid,
    name: row.name,
    repoId: row.parent_uid,
    digest: row.digest,
    updateTime: row.update_time,
  });
}

/** Deprecated tags as the v1 API lists them: by id only. */
const eolTagResource = defineResource({
  table: "tags",
  domain: registryDomain,
  type: "tag",
  see: "tag.list",
  sortFields: { uid: { column: "uid" } },
  toMessage: eolTagFromRow,
});

/** The v1 RegistryService methods the vulnerability reports implement (src/vulnreports). */
export type VulnReportHandlers = Omit<
  ServiceHandlers<typeof RegistryService>,
  "listEolTags" | "listTagHistory"
>;

/**
 * The v1 RegistryService: ListEolTags, the deprecated tags the caller may see, on the v2 list
 * machinery (uidp filters, name, page_size, page_token; ordered by id), ListTagHistory, the API
 * twin of the registry's tag history endpoint, plus the report
 * methods, which live with the reports and are handed in so the registry never imports them.
 */
export function createEolTagsService(
  ctx: RegistryContext,
  reports: VulnReportHandlers,
): BoundService {
  return bindService(RegistryService, {
    ...reports,
    async listEolTags(req, call) {
      const page = await eolTagResource.list(
        ctx,
        call,
        { ...req, orderBy: "", skip: 0 },
        { name: req.name, deprecated: "1" },
      );
      return { items: page.items, nextPageToken: page.nextPageToken };
    },
    listTagHistory: (req, call) => listTagHistory(ctx, req, call),
  });
}
