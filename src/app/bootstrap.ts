import type { Kysely } from "kysely";
import { builtInRoleUid } from "../auth/index.ts";
import type { EventActor } from "../events/index.ts";
import { isOrgName } from "../registry/index.ts";
import { now } from "../rpc/index.ts";
import {
  type GroupsTable,
  getSetting,
  type IdentitiesTable,
  identityExtras,
  type MetadataSchema,
  putSetting,
  type RoleBindingsTable,
  runInTransaction,
} from "../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";
import {
  adminActor,
  recordGroupCreated,
  recordIdentityCreated,
  recordRoleBindingsCreated,
} from "./iam-events.ts";

/** The organisation and its owner identity. */
export interface BootstrapResult {
  groupUid: string;
  identityUid: string;
}

/** How bootstrapOrganisation reports what it creates. */
export interface BootstrapOptions {
  /**
   * The API URL the server uses: the Ce-Source of the events recorded. Default "" (a relative
   * source), for tests on a bare store.
   */
  apiUrl?: string;
  /** Who is creating the organisation. Default: adminActor (`lading admin bootstrap`). */
  actor?: EventActor;
}

/**
 * Creates organisation `name` (a root group) if missing, with an owner identity bound to the
 * built-in `owner` role. Idempotent: run again, it returns the same group and identity, and
 * re-creates the identity or binding if someone deleted them. In one transaction with what it
 * creates, it records the events the API records for the same changes (group, identity and
 * role binding created).
 */
export async function bootstrapOrganisation(
  db: Kysely<MetadataSchema>,
  name: string,
  options: BootstrapOptions = {},
): Promise<BootstrapResult> {
  if (!isOrgName(name)) {
    throw new Error(
      `organisation name "${name}" must be one OCI path component (a-z and 0-9 joined by ., _, __ or -) of at most 63 characters`,
    );
  }
  const apiUrl = options.apiUrl ?? "";
  const actor = options.actor ?? adminActor;
  return runInTransaction(db, async (db) => {
    const time = now();
    const group = await ensureRootGroup(db, name, time);
    if (group.created) await recordGroupCreated(db, apiUrl, actor, group.row);
    const groupUid = group.row.uid;
    const key = `bootstrap.owner.${groupUid}`;
    let identityUid = await getSetting(db, key);
    const existing = identityUid
      ? await db
          .selectFrom("identities")
          .select("uid")
          .where("uid", "=", identityUid)
          .executeTakeFirst()
      : undefined;
    if (!identityUid || !existing) {
      const identity: IdentitiesTable = {
        uid: newChildUid(groupUid),
        parent_uid: groupUid,
        name: "owner",
        description: "Organisation owner created by lading admin bootstrap",
        issuer: "",
        subject: "",
        ...identityExtras,
        last_seen_time: null,
        create_time: time,
        update_time: time,
      };
      identityUid = identity.uid;
      await db.insertInto("identities").values(identity).execute();
      await putSetting(db, key, identityUid);
      await recordIdentityCreated(db, apiUrl, actor, identity);
    }
    const binding: RoleBindingsTable = {
      uid: newChildUid(groupUid),
      parent_uid: groupUid,
      identity_uid: identityUid,
      role_uid: builtInRoleUid("owner"),
      mapping_uid: "",
      create_time: time,
      update_time: time,
    };
    const bound = await db
      .insertInto("role_bindings")
      .values(binding)
      .onConflict((oc) => oc.columns(["parent_uid", "identity_uid", "role_uid"]).doNothing())
      .executeTakeFirst();
    if (Number(bound.numInsertedOrUpdatedRows ?? 0) > 0) {
      await recordRoleBindingsCreated(db, apiUrl, actor, [binding]);
    }
    return { groupUid, identityUid };
  });
}

/**
 * The root group `name`, created unless it exists. A concurrent bootstrap of the same name
 * makes the insert a no-op (ON CONFLICT on the sibling-name index) rather than an error,
 * which on PostgreSQL would abort the transaction.
 */
async function ensureRootGroup(
  db: Kysely<MetadataSchema>,
  name: string,
  time: string,
): Promise<{ row: GroupsTable; created: boolean }> {
  const find = () =>
    db
      .selectFrom("groups")
      .selectAll()
      .where("parent_uid", "=", "")
      .where("name", "=", name)
      .executeTakeFirst();
  const found = await find();
  if (found) return { row: found, created: false };
  const row: GroupsTable = {
    uid: newRootUid(),
    parent_uid: "",
    name,
    description: "",
    create_time: time,
    update_time: time,
  };
  const inserted = await db
    .insertInto("groups")
    .values(row)
    .onConflict((oc) => oc.columns(["parent_uid", "name"]).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0) return { row, created: true };
  const raced = await find();
  if (!raced) throw new Error(`organisation ${name} could be neither created nor found`);
  return { row: raced, created: false };
}
