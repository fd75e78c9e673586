import { invalidArgument } from "../errors/index.ts";
import { TermsService } from "../gen/lading/iam/v2/terms_pb.js";
import type { ListSpec } from "../lists/index.ts";
import { type BoundService, bindService, type Call, now, Violations } from "../rpc/index.ts";
import { isUniqueViolation } from "../store/metadata/index.ts";
import { newChildUid, parentOf } from "../uidp/index.ts";
import { type IamContext, iamDomain } from "./iam-context.ts";
import { loadVisible } from "./visible-rows.ts";

/** A terms document id. */
export const TERMS_DOCUMENT_ID = /^[a-z0-9][a-z0-9._-]{0,127}$/;

/** Most document ids one AcceptTerms call takes. */
export const maxDocumentIds = 50;

const listSpec: ListSpec<"terms_acceptances"> = {
  table: "terms_acceptances",
  domain: iamDomain,
  fields: { created_at: { column: "create_time" }, uid: { column: "uid" } },
  defaultField: "created_at",
};

/** What the terms service tells others. */
export interface TermsOptions {
  /** Called after an acceptance is recorded (the registry's terms gate drops its cache). */
  onAccept?: () => void;
}

/**
 * The TermsService implementation: acceptances are stored per group and document (idempotent)
 * and hold for the group and all its descendants, so a list for a group includes those made on
 * its ancestors.
 */
export function createTermsService(ctx: IamContext, options: TermsOptions = {}): BoundService {
  const { db } = ctx;

  const loadGroup = (call: Call, uid: string, see: string, act?: string) =>
    loadVisible(ctx, call, {
      table: "groups",
      grantsAt: "row",
      uid,
      field: "group",
      see,
      act,
      resourceType: "group",
    });

  return bindService(TermsService, {
    async acceptTerms(req, call) {
      const v = new Violations().uid("group", req.group);
      const ids = [...new Set(req.documentIds)];
      if (ids.length === 0) v.add("document_ids", "is required");
      if (ids.length > maxDocumentIds) v.add("document_ids", `must hold at most ${maxDocumentIds}`);
      req.documentIds.forEach((id, i) => {
        if (!TERMS_DOCUMENT_ID.test(id)) {
          v.add(`document_ids[${i}]`, `must match the pattern ${TERMS_DOCUMENT_ID.source}`);
        }
      });
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      await loadGroup(call, req.group, "groups.list", "terms.accept");
      const time = now();
      const acceptedBy = call.principal?.identityUid ?? "";
      for (const docId of ids) {
        try {
          await db
            .insertInto("terms_acceptances")
            .values({
              uid: newChildUid(req.group),
              parent_uid: req.group,
              doc_id: docId,
              accepted_by: acceptedBy,
              create_time: time,
              update_time: time,
            })
            .onConflict((oc) => oc.doNothing())
            .execute();
        } catch (error) {
          if (!isUniqueViolation(error)) throw error;
        }
      }
      options.onAccept?.();
      return { group: req.group, documentIds: ids };
    },

    async listTermsAcceptances(req, call) {
      await loadGroup(call, req.group, "terms.list");
      const chain: string[] = [];
      for (let at = req.group; at !== ""; at = parentOf(at)) chain.push(at);
      const page = await ctx.lists.list(listSpec, {
        parameters: { pageSize: req.pageSize, pageToken: req.pageToken, orderBy: "", skip: 0 },
        filters: {},
        visible: { scopes: [], childrenOf: chain },
        caller: call.principal?.identityUid ?? "",
      });
      return {
        termsAcceptances: page.rows.map((row) => ({
          docId: row.doc_id,
          acceptedBy: row.accepted_by,
          groupUid: row.parent_uid,
          createTime: row.create_time,
        })),
        nextPageToken: page.nextPageToken,
        totalCount: page.totalCount,
      };
    },
  });
}
