import { createHash } from "node:crypto";
import type { Kysely } from "kysely";
import { failedPrecondition, notFound } from "../errors/index.ts";
import type { RoleBinding } from "../gen/lading/iam/v2/role_bindings_pb.js";
import { now } from "../rpc/index.ts";
import {
  isUniqueViolation,
  type MetadataSchema,
  type RoleBindingsTable,
} from "../store/metadata/index.ts";
import { isWithin, newChildUid } from "../uidp/index.ts";
import { iamDomain } from "./iam-context.ts";
import { hydrateRoleBindings } from "./role-bindings-service.ts";

/** The PreconditionFailure violation types AcceptGroupInvite reports. */
export const inviteViolations = {
  expired: "INVITE_EXPIRED",
  used: "INVITE_USED",
  emailMismatch: "INVITE_EMAIL_MISMATCH",
  unreachable: "INVITE_GROUP_UNREACHABLE",
  roleGone: "INVITE_ROLE_GONE",
} as const;

/** SHA-256 (hex) of an invite code: what is stored and looked up. */
export function inviteCodeHash(code: string): string {
  return createHash("sha256").update(code).digest("hex");
}

const refuse = (type: string, subject: string, description: string) =>
  failedPrecondition(iamDomain, description, [{ type, subject, description }]);

/**
 * Accepts the invite whose code is `code` for identity `identityUid`: binds the invite's role on
 * its group (mapping_uid "") and returns the binding, hydrated. An unknown or deleted code is
 * NOT_FOUND; expired, already used, email mismatch, an identity that cannot reach the group or
 * a deleted role are FAILED_PRECONDITION with one violation. A binding that already exists is
 * returned as it is and does not consume a single-use invite. Marking a single-use invite used
 * and creating the binding happen in one transaction, guarded by `used_time IS NULL`, so of two
 * concurrent accepts exactly one wins.
 */
export async function acceptInvite(
  db: Kysely<MetadataSchema>,
  identityUid: string,
  code: string,
): Promise<RoleBinding> {
  const hash = inviteCodeHash(code);
  const invite = await db
    .selectFrom("group_invites")
    .selectAll()
    .where("code_hash", "=", hash)
    .executeTakeFirst();
  const [group, identity, role] = invite
    ? await Promise.all([
        db
          .selectFrom("groups")
          .select("uid")
          .where("uid", "=", invite.parent_uid)
          .executeTakeFirst(),
        db
          .selectFrom("identities")
          .select(["uid", "parent_uid", "email"])
          .where("uid", "=", identityUid)
          .executeTakeFirst(),
        db.selectFrom("roles").select("uid").where("uid", "=", invite.role_uid).executeTakeFirst(),
      ])
    : [];
  if (!invite || !group) throw notFound(iamDomain, "group invite", "for this code");
  const subject = invite.key_id;
  const time = now();
  if (invite.expire_time <= time) {
    throw refuse(inviteViolations.expired, subject, "the invite has expired");
  }
  if (Number(invite.single_use) === 1 && invite.used_time !== null) {
    throw refuse(inviteViolations.used, subject, "the single-use invite was already accepted");
  }
  const email = identity?.email.trim().toLowerCase() ?? "";
  if (invite.email !== "" && email !== invite.email) {
    throw refuse(
      inviteViolations.emailMismatch,
      subject,
      "the invite is for another email address than the caller's",
    );
  }
  if (
    !identity ||
    (identity.parent_uid !== "" && !isWithin(invite.parent_uid, identity.parent_uid))
  ) {
    throw refuse(
      inviteViolations.unreachable,
      subject,
      "the caller's identity cannot hold roles on the invite's group",
    );
  }
  if (!role) throw refuse(inviteViolations.roleGone, subject, "the invite's role no longer exists");

  const existing = () =>
    db
      .selectFrom("role_bindings")
      .selectAll()
      .where("parent_uid", "=", invite.parent_uid)
      .where("identity_uid", "=", identity.uid)
      .where("role_uid", "=", invite.role_uid)
      .executeTakeFirst();
  const found = await existing();
  if (found) return (await hydrateRoleBindings(db, [found]))[0];

  const row: RoleBindingsTable = {
    uid: newChildUid(invite.parent_uid),
    parent_uid: invite.parent_uid,
    identity_uid: identity.uid,
    role_uid: invite.role_uid,
    mapping_uid: "",
    create_time: time,
    update_time: time,
  };
  try {
    await db.transaction().execute(async (trx) => {
      if (Number(invite.single_use) === 1) {
        const marked = await trx
          .updateTable("group_invites")
          .set({ used_time: time, update_time: time })
          .where("uid", "=", invite.uid)
          .where("used_time", "is", null)
          .executeTakeFirst();
        if (Number(marked.numUpdatedRows) !== 1) {
          throw refuse(
            inviteViolations.used,
            subject,
            "the single-use invite was already accepted",
          );
        }
      }
      await trx.insertInto("role_bindings").values(row).execute();
    });
  } catch (error) {
    const raced = isUniqueViolation(error) ? await existing() : undefined;
    if (!raced) throw error;
    return (await hydrateRoleBindings(db, [raced]))[0];
  }
  return (await hydrateRoleBindings(db, [row]))[0];
}
