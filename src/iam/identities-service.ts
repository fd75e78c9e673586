import { create } from "@bufbuild/protobuf";
import { failedPrecondition, invalidArgument, notFound } from "../errors/index.ts";
import { IdentitiesService, IdentitySchema } from "../gen/lading/iam/v2/identities_pb.js";
import {
  type BoundService,
  bindService,
  type Call,
  defineResource,
  now,
  updatePaths,
  Violations,
} from "../rpc/index.ts";
import { type IdentitiesTable, identityExtras } from "../store/metadata/index.ts";
import { isUidp, newChildUid, parentOf } from "../uidp/index.ts";
import { type IamContext, iamDomain, namedSortFields } from "./iam-context.ts";
import {
  applyKindPaths,
  checkKind,
  identityFromRow,
  kindFromRow,
  kindPaths,
  populatedKindPaths,
} from "./identity-kinds.ts";
import { requireCanGrantAll } from "./role-grant.ts";
import { requireParentGroup } from "./visible-rows.ts";

/** Identities as the API lists and gets them (signed-in users aside, see getIdentity). */
export const identityResource = defineResource({
  table: "identities",
  domain: iamDomain,
  type: "identity",
  see: "identity.list",
  sortFields: { ...namedSortFields, last_seen_at: { column: "last_seen_time", nullable: true } },
  toMessage: identityFromRow,
});

const fields = {
  updatable: ["name", "description", ...kindPaths],
  outputOnly: ["uid", "last_seen_time", "create_time", "update_time", "email"],
};

export { identityFromRow } from "./identity-kinds.ts";

/** The IdentitiesService implementation. */
export function createIdentitiesService(ctx: IamContext): BoundService {
  const { db } = ctx;

  /**
   * A signed-in user (a root-level identity) is seen by itself and by callers holding
   * identity.list on a group where the user has a role binding; anyone else gets NOT_FOUND.
   */
  async function visibleUser(call: Call, uid: string): Promise<IdentitiesTable> {
    const row = await db
      .selectFrom("identities")
      .selectAll()
      .where("uid", "=", uid)
      .executeTakeFirst();
    if (row && call.principal?.identityUid !== uid) {
      const grants = await call.principal?.grants();
      const groups = await db
        .selectFrom("role_bindings")
        .select("parent_uid")
        .where("identity_uid", "=", uid)
        .execute();
      if (!groups.some((g) => grants?.can("identity.list", g.parent_uid))) {
        throw notFound(iamDomain, "identity", uid);
      }
    }
    if (!row) throw notFound(iamDomain, "identity", uid);
    return row;
  }

  return bindService(IdentitiesService, {
    async listIdentities(req, call) {
      const page = await identityResource.list(ctx, call, req, { name: req.name });
      return { ...page, identities: page.items };
    },

    async getIdentity(req, call) {
      if (isUidp(req.uid) && parentOf(req.uid) === "") {
        return identityFromRow(await visibleUser(call, req.uid));
      }
      return identityResource.get(ctx, call, req.uid);
    },

    async createIdentity(req, call) {
      const identity = req.identity ?? create(IdentitySchema);
      const time = now();
      const v = new Violations()
        .uid("parent", req.parent)
        .name("name", identity.name)
        .description("description", identity.description);
      const kind = checkKind(v, ctx.outbound, identity.claimMatch, identity.staticKeys, time);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      await requireParentGroup(ctx, call, req.parent, "identity.create");
      const row: IdentitiesTable = {
        ...identityExtras,
        uid: newChildUid(req.parent),
        parent_uid: req.parent,
        name: identity.name,
        description: identity.description,
        ...kind,
        last_seen_time: null,
        create_time: time,
        update_time: time,
      };
      await db.insertInto("identities").values(row).execute();
      return identityFromRow(row);
    },

    async updateIdentity(req, call) {
      const identity = req.identity ?? create(IdentitySchema);
      const row = await identityResource.load(ctx, call, identity.uid, {
        field: "identity.uid",
        act: "identity.update",
      });
      const paths = updatePaths(iamDomain, req.updateMask, call, fields, () => {
        const set: string[] = [];
        if (identity.name) set.push("name");
        if (identity.description) set.push("description");
        return [...set, ...populatedKindPaths(identity)];
      });
      const v = new Violations();
      const kindChanged = kindPaths.some((p) => paths.has(p));
      const next: IdentitiesTable = {
        ...row,
        name: paths.has("name") ? identity.name : row.name,
        description: paths.has("description") ? identity.description : row.description,
      };
      if (kindChanged) {
        const wanted = applyKindPaths(kindFromRow(row), identity, paths);
        const kind = checkKind(
          v,
          ctx.outbound,
          wanted.claimMatch,
          wanted.staticKeys,
          row.create_time,
        );
        Object.assign(next, kind);
      }
      v.name("name", next.name).description("description", next.description);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      if (paths.size === 0) return identityFromRow(row);
      // New credentials hand every binding of the identity to whoever holds them.
      if (kindChanged) {
        const held = await db
          .selectFrom("role_bindings as b")
          .innerJoin("roles as r", "r.uid", "b.role_uid")
          .select(["r.capabilities", "b.parent_uid as group"])
          .where("b.identity_uid", "=", row.uid)
          .execute();
        await requireCanGrantAll(call, held);
      }
      next.update_time = now();
      const { uid, ...changes } = next;
      await db.updateTable("identities").set(changes).where("uid", "=", uid).execute();
      return identityFromRow(next);
    },

    async deleteIdentity(req, call) {
      const row = await identityResource.load(ctx, call, req.uid, { act: "identity.delete" });
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
