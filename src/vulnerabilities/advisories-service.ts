import { type Kysely, PostgresAdapter } from "kysely";
import { invalidArgument, notFound } from "../errors/index.ts";
import {
  AdvisoriesService,
  type Advisory,
  ImportFormat,
} from "../gen/lading/vulnerabilities/v2/advisories_pb.js";
import type { ListSpec } from "../lists/index.ts";
import {
  type BoundService,
  bindService,
  requireAccess,
  requireParentGroup,
  scopesOf,
  Violations,
} from "../rpc/index.ts";
import type { AdvisoriesTable, MetadataSchema } from "../store/metadata/index.ts";
import { parentOf } from "../uidp/index.ts";
import { readAdvisoryChanges } from "./advisory-changes.ts";
import { advisoryConditions } from "./advisory-filters.ts";
import { advisoryFromRow } from "./advisory-message.ts";
import { createAdvisorySearchIndex } from "./advisory-search-index.ts";
import { feedParsers } from "./feeds/feed-formats.ts";
import { isSourceName, sourceNameRule } from "./import/advisory-row.ts";
import { importFeed } from "./import/import-feed.ts";
import { publicAdvisoriesGroupUid } from "./public-advisories.ts";
import { severitiesOf } from "./severity-lookup.ts";
import {
  advisorySortFields,
  type VulnerabilitiesContext,
  vulnerabilitiesDomain,
} from "./vulnerabilities-context.ts";

const listSpec: ListSpec<"advisories"> = {
  table: "advisories",
  domain: vulnerabilitiesDomain,
  fields: advisorySortFields,
  defaultField: "advisory_id",
};

/** Most documents one import call takes (the request body is at most 1 MiB anyway). */
export const maxImportDocuments = 1000;

const formats: Record<number, keyof typeof feedParsers> = {
  [ImportFormat.ADVISORIES]: "advisories",
  [ImportFormat.OSV]: "osv",
  [ImportFormat.OPENVEX]: "openvex",
};

/** The converted rows, with the severities of their aliases in their owner's view. */
export async function advisoriesFromRows(
  db: Kysely<MetadataSchema>,
  rows: readonly AdvisoriesTable[],
): Promise<Advisory[]> {
  const severities = await severitiesOf(
    db,
    rows.map((r) => ({ aliases: JSON.parse(r.aliases) as string[], parentUid: r.parent_uid })),
  );
  return rows.map((row, i) => advisoryFromRow(row, severities[i]));
}

/** The AdvisoriesService implementation. */
export function createAdvisoriesService(ctx: VulnerabilitiesContext): BoundService {
  const { db } = ctx;
  const searchIndex = ctx.searchIndex ?? createAdvisorySearchIndex(db);
  const dialect = db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
  return bindService(AdvisoriesService, {
    async listAdvisories(req, call) {
      const conditions = advisoryConditions(req, dialect);
      if (conditions.error) throw invalidArgument(vulnerabilitiesDomain, conditions.error);
      const scopes = await scopesOf(call, "advisories.list");
      const search = conditions.value?.search;
      // The total and the page ask the search copy together: one read of its change counter.
      let changesRead: Promise<bigint> | undefined;
      const changes = () => {
        changesRead ??= readAdvisoryChanges(db);
        return changesRead;
      };
      const page = await ctx.lists.list(listSpec, {
        parameters: req,
        filters: {},
        conditions: conditions.value,
        countRows: search && ((scope) => searchIndex.count({ ...search, ...scope }, changes)),
        findKeys: search && ((keys) => searchIndex.page({ ...search, ...keys }, changes)),
        visible: { scopes: [...scopes, publicAdvisoriesGroupUid] },
        caller: call.principal?.identityUid ?? "",
      });
      return { ...page, advisories: await advisoriesFromRows(db, page.rows) };
    },

    async getAdvisory(req, call) {
      const v = new Violations().uid("uid", req.uid);
      if (!v.empty) throw invalidArgument(vulnerabilitiesDomain, v.list);
      const group = parentOf(req.uid);
      if (group !== publicAdvisoriesGroupUid) {
        await requireAccess(call, {
          see: "advisories.list",
          at: group || req.uid,
          domain: vulnerabilitiesDomain,
          resourceType: "advisory",
          resourceName: req.uid,
        });
      }
      const row = await db
        .selectFrom("advisories")
        .selectAll()
        .where("uid", "=", req.uid)
        .executeTakeFirst();
      if (!row) throw notFound(vulnerabilitiesDomain, "advisory", req.uid);
      const [advisory] = await advisoriesFromRows(db, [row]);
      return advisory;
    },

    async importAdvisories(req, call) {
      const v = new Violations().uid("parent", req.parent);
      const format = formats[req.format];
      if (!format)
        v.add(
          "format",
          "must be IMPORT_FORMAT_ADVISORIES, IMPORT_FORMAT_OSV or IMPORT_FORMAT_OPENVEX",
        );
      const source = req.source || "api";
      if (!isSourceName(source)) v.add("source", sourceNameRule);
      if (req.documents.length > maxImportDocuments)
        v.add("documents", `takes at most ${maxImportDocuments} documents per call`);
      if (req.documents.length === 0 && !req.finish)
        v.add("documents", "must hold at least one document (or set finish)");
      for (const [i, d] of req.documents.entries()) {
        if (d.name.length > 1024) v.add(`documents[${i}].name`, "must be at most 1024 characters");
      }
      if (!v.empty || !format) throw invalidArgument(vulnerabilitiesDomain, v.list);
      await requireParentGroup(db, call, req.parent, "advisories.create", vulnerabilitiesDomain);
      await requireAccess(call, {
        see: "groups.list",
        act: "advisories.update",
        at: req.parent,
        domain: vulnerabilitiesDomain,
        resourceType: "group",
        resourceName: req.parent,
      });
      const { summary, documents } = await importFeed(
        db,
        { parentUid: req.parent, source, author: call.principal?.identityUid ?? "" },
        feedParsers[format],
        req.documents.map((d, i) => ({ file: d.name || `documents[${i}]`, text: d.content })),
        { finish: req.finish, knownDocuments: req.knownDocuments },
      );
      return {
        created: BigInt(summary.created),
        updated: BigInt(summary.updated),
        withdrawn: BigInt(summary.withdrawn),
        unchanged: BigInt(summary.unchanged),
        rejected: BigInt(summary.rejected),
        rejections: summary.rejections,
        documents,
      };
    },
  });
}
