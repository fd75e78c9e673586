import type { Kysely } from "kysely";
import { builtInRoleUid } from "../auth/index.ts";
import { isUniqueViolation } from "../iam/index.ts";
import { isOrgName } from "../registry/index.ts";
import { now } from "../rpc/index.ts";
import {
  getSetting,
  identityExtras,
  type MetadataSchema,
  putSetting,
} from "../store/metadata/index.ts";
import { newChildUid, newRootUid } from "../uidp/index.ts";

/** The organisation and its owner identity. */
export interface BootstrapResult {
  groupUid: string;
  identityUid: string;
}

/**
 * Creates organisation `name` (a root group) if missing, with an owner identity bound to the
 * built-in `owner` role. Idempotent: run again, it returns the same group and identity, and
 * re-creates the identity or binding if someone deleted them.
 */
export async function bootstrapOrganisation(
  db: Kysely<MetadataSchema>,
  name: string,
): Promise<BootstrapResult> {
  if (!isOrgName(name)) {
    throw new Error(
      `organisation name "${name}" must be one OCI path component (a-z and 0-9 joined by ., _, __ or -) of at most 63 characters`,
    );
  }
  const groupUid = await ensureRootGroup(db, name);
  const key = `bootstrap.owner.${groupUid}`;
  const time = now();
  let identityUid = await getSetting(db, key);
  const existing = identityUid
    ? await db
        .selectFrom("identities")
        .select("uid")
        .where("uid", "=", identityUid)
        .executeTakeFirst()
    : undefined;
  if (!identityUid || !existing) {
    identityUid = newChildUid(groupUid);
    await db
      .insertInto("identities")
      .values({
        uid: identityUid,
        parent_uid: groupUid,
        name: "owner",
        description: "Organisation owner created by lading admin bootstrap",
        issuer: "",
        subject: "",
        ...identityExtras,
        last_seen_time: null,
        create_time: time,
        update_time: time,
      })
      .execute();
    await putSetting(db, key, identityUid);
  }
  await db
    .insertInto("role_bindings")
    .values({
      uid: newChildUid(groupUid),
      parent_uid: groupUid,
      identity_uid: identityUid,
      role_uid: builtInRoleUid("owner"),
      mapping_uid: "",
      create_time: time,
      update_time: time,
    })
    .onConflict((oc) => oc.columns(["parent_uid", "identity_uid", "role_uid"]).doNothing())
    .execute();
  return { groupUid, identityUid };
}

async function ensureRootGroup(db: Kysely<MetadataSchema>, name: string): Promise<string> {
  const find = () =>
    db
      .selectFrom("groups")
      .select("uid")
      .where("parent_uid", "=", "")
      .where("name", "=", name)
      .executeTakeFirst();
  const found = await find();
  if (found) return found.uid;
  const time = now();
  const uid = newRootUid();
  try {
    await db
      .insertInto("groups")
      .values({ uid, parent_uid: "", name, description: "", create_time: time, update_time: time })
      .execute();
    return uid;
  } catch (error) {
    const raced = isUniqueViolation(error) ? await find() : undefined;
    if (!raced) throw error;
    return raced.uid;
  }
}
