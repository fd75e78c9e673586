import { create } from "@bufbuild/protobuf";
import { failedPrecondition, invalidArgument } from "../errors/index.ts";
import {
  IdentitiesService,
  type Identity,
  IdentitySchema,
} from "../gen/lading/iam/v2/identities_pb.js";
import type { ListSpec } from "../lists/index.ts";
import {
  type BoundService,
  bindService,
  type Call,
  now,
  scopesOf,
  updatePaths,
  Violations,
} from "../rpc/index.ts";
import { type IdentitiesTable, identityExtras } from "../store/metadata/index.ts";
import { newChildUid } from "../uidp/index.ts";
import { type IamContext, iamDomain, namedSortFields } from "./iam-context.ts";
import { loadVisible, requireParentGroup } from "./visible-rows.ts";

const listSpec: ListSpec<"identities"> = {
  table: "identities",
  domain: iamDomain,
  fields: { ...namedSortFields, last_seen_at: { column: "last_seen_time", nullable: true } },
  defaultField: "uid",
};

const fields = {
  updatable: ["name", "description", "claim_match.issuer", "claim_match.subject"],
  outputOnly: ["uid", "last_seen_time", "create_time", "update_time"],
};

/** Converts a stored row to the API message. */
export function identityFromRow(row: IdentitiesTable): Identity {
  return create(IdentitySchema, {
    uid: row.uid,
    name: row.name,
    description: row.description,
    lastSeenTime: row.last_seen_time ?? undefined,
    createTime: row.create_time,
    updateTime: row.update_time,
    claimMatch:
      row.issuer || row.subject ? { issuer: row.issuer, subject: row.subject } : undefined,
  });
}

/** Checks a claimMatch: both issuer (an http(s) URL) and subject, or neither. */
function checkClaimMatch(v: Violations, prefix: string, issuer: string, subject: string): void {
  if (issuer === "" && subject === "") return;
  if (!isIssuerUrl(issuer))
    v.add(`${prefix}claim_match.issuer`, "must be an https URL (http only for loopback hosts)");
  if (subject === "" || subject.length > 1024)
    v.add(`${prefix}claim_match.subject`, "must be 1 to 1024 characters");
}

function isIssuerUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const url = new URL(text);
  const loopback = ["localhost", "127.0.0.1", "[::1]"].includes(url.hostname);
  return (
    (url.protocol === "https:" || (url.protocol === "http:" && loopback)) &&
    !url.search &&
    !url.hash
  );
}

/** The IdentitiesService implementation. */
export function createIdentitiesService(ctx: IamContext): BoundService {
  const { db } = ctx;

  const visibleIdentity = (call: Call, uid: string, field: string, act?: string) =>
    loadVisible(ctx, call, {
      table: "identities",
      uid,
      field,
      see: "identity.list",
      act,
      resourceType: "identity",
    });

  return bindService(IdentitiesService, {
    async listIdentities(req, call) {
      const page = await ctx.lists.list(listSpec, {
        parameters: req,
        filters: { name: req.name },
        visible: { scopes: await scopesOf(call, "identity.list") },
        caller: call.principal?.identityUid ?? "",
      });
      return { ...page, identities: page.rows.map(identityFromRow) };
    },

    async getIdentity(req, call) {
      return identityFromRow(await visibleIdentity(call, req.uid, "uid"));
    },

    async createIdentity(req, call) {
      const identity = req.identity ?? create(IdentitySchema);
      const claim = identity.claimMatch ?? { issuer: "", subject: "" };
      const v = new Violations()
        .uid("parent", req.parent)
        .name("name", identity.name)
        .description("description", identity.description);
      checkClaimMatch(v, "", claim.issuer, claim.subject);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      await requireParentGroup(ctx, call, req.parent, "identity.create");
      const time = now();
      const row: IdentitiesTable = {
        uid: newChildUid(req.parent),
        parent_uid: req.parent,
        name: identity.name,
        description: identity.description,
        issuer: claim.issuer,
        subject: claim.subject,
        ...identityExtras,
        last_seen_time: null,
        create_time: time,
        update_time: time,
      };
      await db.insertInto("identities").values(row).execute();
      return identityFromRow(row);
    },

    async updateIdentity(req, call) {
      const identity = req.identity ?? create(IdentitySchema);
      const row = await visibleIdentity(call, identity.uid, "identity.uid", "identity.update");
      const paths = updatePaths(iamDomain, req.updateMask, call, fields, () => {
        const set: string[] = [];
        if (identity.name) set.push("name");
        if (identity.description) set.push("description");
        if (identity.claimMatch?.issuer) set.push("claim_match.issuer");
        if (identity.claimMatch?.subject) set.push("claim_match.subject");
        return set;
      });
      const next: IdentitiesTable = {
        ...row,
        name: paths.has("name") ? identity.name : row.name,
        description: paths.has("description") ? identity.description : row.description,
        issuer: paths.has("claim_match.issuer") ? (identity.claimMatch?.issuer ?? "") : row.issuer,
        subject: paths.has("claim_match.subject")
          ? (identity.claimMatch?.subject ?? "")
          : row.subject,
      };
      const v = new Violations()
        .name("name", next.name)
        .description("description", next.description);
      checkClaimMatch(v, "", next.issuer, next.subject);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      if (paths.size === 0) return identityFromRow(row);
      next.update_time = now();
      const { uid, ...changes } = next;
      await db.updateTable("identities").set(changes).where("uid", "=", uid).execute();
      return identityFromRow(next);
    },

    async deleteIdentity(req, call) {
      const row = await visibleIdentity(call, req.uid, "uid", "identity.delete");
      const binding = await db
        .selectFrom("role_bindings")
        .select("uid")
        .where("identity_uid", "=", row.uid)
        .limit(1)
        .executeTakeFirst();
      if (binding) {
        const description =
          "cannot delete identity with role bindings; delete its role bindings first";
        throw failedPrecondition(iamDomain, description, [
          { type: "RESOURCE_NOT_EMPTY", subject: "identity", description },
        ]);
      }
      await db.deleteFrom("identities").where("uid", "=", row.uid).execute();
      return {};
    },
  });
}
