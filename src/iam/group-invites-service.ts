import { randomBytes } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import type { Kysely } from "kysely";
import { failedPrecondition, invalidArgument } from "../errors/index.ts";
import {
  type GroupInvite,
  GroupInviteSchema,
  GroupInvitesService,
} from "../gen/lading/iam/v2/group_invites_pb.js";
import {
  type BoundService,
  bindService,
  type Call,
  defineResource,
  now,
  Violations,
} from "../rpc/index.ts";
import {
  type GroupInvitesTable,
  isUniqueViolation,
  type MetadataSchema,
} from "../store/metadata/index.ts";
import { newChildUid } from "../uidp/index.ts";
import { type IamContext, iamDomain } from "./iam-context.ts";
import { acceptInvite, inviteCodeHash } from "./invite-accept.ts";
import { grantableRole, requireCapability, requireRoleCapabilities } from "./role-grant.ts";
import { requireParentGroup } from "./visible-rows.ts";

/** Shortest invite lifetime, in seconds (1 minute). */
export const minInviteTtlSeconds = 60;
/** Longest invite lifetime, in seconds (30 days). */
export const maxInviteTtlSeconds = 30 * 24 * 3600;
/** Every invite code starts with this, so leaked codes are recognisable (secret scanners). */
export const inviteCodePrefix = "lgi_";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** Loads invites with their roles' names in one query. */
async function hydrateGroupInvites(
  db: Kysely<MetadataSchema>,
  rows: GroupInvitesTable[],
): Promise<GroupInvite[]> {
  if (rows.length === 0) return [];
  const roles = await db
    .selectFrom("roles")
    .select(["uid", "name", "description"])
    .where("uid", "in", [...new Set(rows.map((r) => r.role_uid))])
    .execute();
  const byUid = new Map(roles.map((r) => [r.uid, r]));
  return rows.map((row) =>
    create(GroupInviteSchema, {
      uid: row.uid,
      roleUid: row.role_uid,
      role: byUid.get(row.role_uid),
      email: row.email,
      expirationTime: row.expire_time,
      singleUse: Number(row.single_use) === 1,
      keyId: row.key_id,
      createTime: row.create_time,
    }),
  );
}

/** Group invites as the API lists and gets them, newest first unless asked otherwise. */
export const groupInviteResource = defineResource({
  table: "group_invites",
  domain: iamDomain,
  type: "group invite",
  see: "group_invites.list",
  sortFields: { uid: { column: "uid" }, created_at: { column: "create_time" } },
  defaultOrder: "created_at desc",
  hydrate: hydrateGroupInvites,
});

/**
 * The GroupInvitesService implementation. An invite's code is returned once, by Create; only
 * its SHA-256 is stored, with a short key id that List and Get show (docs/invites-and-terms.md).
 */
export function createGroupInvitesService(ctx: IamContext): BoundService {
  const { db } = ctx;

  /** Validates the body; returns the ttl in milliseconds and the normalised email. */
  function validate(input: GroupInvite): { ttlMs: number; email: string } {
    const v = new Violations();
    if (input.roleUid === "") v.add("group_invite.role_uid", "is required");
    else v.uid("group_invite.role_uid", input.roleUid);
    const ttl = input.ttl;
    const seconds = ttl ? Number(ttl.seconds) + ttl.nanos / 1e9 : 0;
    if (!ttl) v.add("group_invite.ttl", "is required");
    else if (seconds < minInviteTtlSeconds || seconds > maxInviteTtlSeconds) {
      v.add(
        "group_invite.ttl",
        `must be between ${minInviteTtlSeconds}s and ${maxInviteTtlSeconds}s`,
      );
    }
    const email = input.email.trim().toLowerCase();
    if (email !== "" && (email.length > 254 || !EMAIL.test(email))) {
      v.add("group_invite.email", "must be an email address");
    }
    if (!v.empty) throw invalidArgument(iamDomain, v.list);
    return { ttlMs: Math.round(seconds * 1000), email };
  }

  /** The role must be built-in or defined on the group or an ancestor, and grantable by the caller. */
  async function checkRole(call: Call, group: string, roleUid: string) {
    const v = new Violations();
    const role = await grantableRole(ctx, v, "group_invite.role_uid", roleUid, group);
    if (!role) throw invalidArgument(iamDomain, v.list);
    await requireRoleCapabilities(call, role, group);
  }

  return bindService(GroupInvitesService, {
    async listGroupInvites(req, call) {
      if (req.keyId !== "" && !/^[0-9a-f]{8}$/.test(req.keyId)) {
        throw invalidArgument(iamDomain, [
          { field: "key_id", description: "must be 8 hex digits" },
        ]);
      }
      const page = await groupInviteResource.list(ctx, call, req, { key_id: req.keyId });
      return { ...page, groupInvites: page.items };
    },

    async getGroupInvite(req, call) {
      return groupInviteResource.get(ctx, call, req.uid);
    },

    async createGroupInvite(req, call) {
      const input = req.groupInvite ?? create(GroupInviteSchema);
      const v = new Violations().uid("parent", req.parent);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      await requireParentGroup(ctx, call, req.parent, "group_invites.create");
      await requireCapability(call, "role_bindings.create", req.parent);
      const { ttlMs, email } = validate(input);
      await checkRole(call, req.parent, input.roleUid);
      const time = now();
      for (let attempt = 0; ; attempt++) {
        const code = `${inviteCodePrefix}${randomBytes(32).toString("base64url")}`;
        const row: GroupInvitesTable = {
          uid: newChildUid(req.parent),
          parent_uid: req.parent,
          role_uid: input.roleUid,
          email,
          key_id: randomBytes(4).toString("hex"),
          code_hash: inviteCodeHash(code),
          single_use: input.singleUse ? 1 : 0,
          used_time: null,
          expire_time: new Date(Date.parse(time) + ttlMs).toISOString(),
          create_time: time,
          update_time: time,
        };
        try {
          // In a (nested) transaction of its own: a failed insert must not spoil the caller's.
          await db
            .transaction()
            .execute((trx) => trx.insertInto("group_invites").values(row).execute());
        } catch (error) {
          if (isUniqueViolation(error) && attempt < 3) continue;
          throw error;
        }
        return { ...(await hydrateGroupInvites(db, [row]))[0], code };
      }
    },

    /** Idempotent (AIP-135): deleting an invite that is already gone succeeds. */
    async deleteGroupInvite(req, call) {
      await groupInviteResource.find(ctx, call, req.uid, { act: "group_invites.delete" });
      await db.deleteFrom("group_invites").where("uid", "=", req.uid).execute();
      return {};
    },

    async acceptGroupInvite(req, call) {
      if (req.code === "") {
        throw invalidArgument(iamDomain, [{ field: "code", description: "is required" }]);
      }
      if (!call.principal) throw failedPrecondition(iamDomain, "an identity is required", []);
      return { roleBinding: await acceptInvite(db, call.principal.identityUid, req.code) };
    },
  });
}
