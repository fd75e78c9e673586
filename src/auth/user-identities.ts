import { createHash } from "node:crypto";
import type { JWTPayload } from "jose";
import type { Kysely, Transaction } from "kysely";
import {
  type IdentityProvidersTable,
  identityExtras,
  type MetadataSchema,
} from "../store/metadata/index.ts";
import { isWithin, newChildUid } from "../uidp/index.ts";

/** The identity of a user signed in through an identity provider. */
export interface SignedInUser {
  uid: string;
  /** True when this sign-in created the identity. */
  created: boolean;
}

const maxName = 63;

/** The uid of the user `subject` of `issuer`: the first 40 hex of sha256(issuer "\n" subject). */
export function userIdentityUid(issuer: string, subject: string): string {
  return createHash("sha256").update(`${issuer}\n${subject}`).digest("hex").slice(0, 40);
}

/**
 * An identity name from id-token claims: preferred_username, else name, else the local part of
 * email, else the subject (the first with a letter or digit left); lower-cased, accents dropped,
 * other characters replaced by "-", at most 63 characters.
 */
export function userIdentityName(claims: JWTPayload): string {
  const email = typeof claims.email === "string" ? claims.email.split("@")[0] : undefined;
  for (const candidate of [claims.preferred_username, claims.name, email, claims.sub]) {
    if (typeof candidate !== "string") continue;
    const name = candidate
      .normalize("NFKD")
      .replace(/[\u0300-\u036f]/g, "")
      .toLowerCase()
      .replace(/[^a-z0-9 ._-]+/g, "-")
      .trim()
      .slice(0, maxName)
      .trim();
    if (/[a-z0-9]/.test(name)) return name;
  }
  return "user";
}

/** The values of the groups claim `claim`: an array of strings or one string. */
export function groupsOf(claims: JWTPayload, claim: string): string[] {
  if (!claim) return [];
  const value = claims[claim];
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

/**
 * Creates or updates the identity of the user the verified id token `claims` names, in one
 * transaction: a new identity gets the provider's default role on the provider's group; every
 * sign-in records lastSeenTime and the verified email, and reconciles the role bindings made by
 * the provider's external group role mappings with the groups claim (bindings made through the
 * API, mapping_uid "", are never touched).
 */
export async function upsertSignedInUser(
  db: Kysely<MetadataSchema>,
  provider: IdentityProvidersTable,
  claims: JWTPayload,
): Promise<SignedInUser> {
  const issuer = String(claims.iss);
  const subject = String(claims.sub);
  const uid = userIdentityUid(issuer, subject);
  const email =
    claims.email_verified === true && typeof claims.email === "string" ? claims.email : "";
  const time = new Date().toISOString();
  return db.transaction().execute(async (trx) => {
    const inserted = await trx
      .insertInto("identities")
      .values({
        uid,
        parent_uid: "",
        name: userIdentityName(claims),
        description: "",
        issuer,
        subject,
        ...identityExtras,
        email,
        provider_uid: provider.uid,
        last_seen_time: time,
        create_time: time,
        update_time: time,
      })
      .onConflict((oc) => oc.column("uid").doNothing())
      .executeTakeFirst();
    const created = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    if (created) {
      if (provider.default_role_uid) {
        await bind(trx, uid, provider.parent_uid, provider.default_role_uid, "", time);
      }
    } else {
      await trx
        .updateTable("identities")
        .set({ email, provider_uid: provider.uid, last_seen_time: time })
        .where("uid", "=", uid)
        .execute();
    }
    await reconcileMappings(trx, uid, provider, groupsOf(claims, provider.groups_claim), time);
    return { uid, created };
  });
}

async function reconcileMappings(
  trx: Transaction<MetadataSchema>,
  identityUid: string,
  provider: IdentityProvidersTable,
  groups: string[],
  time: string,
): Promise<void> {
  const wanted =
    groups.length === 0
      ? []
      : await trx
          .selectFrom("external_group_role_mappings")
          .select(["uid", "role_uid", "scope_uid"])
          .where("parent_uid", "=", provider.uid)
          .where("external_group_id", "in", [...new Set(groups)])
          .orderBy("uid")
          .execute();
  const wantedUids = new Set(wanted.map((m) => m.uid));
  const held = await trx
    .selectFrom("role_bindings")
    .select(["uid", "mapping_uid"])
    .where("identity_uid", "=", identityUid)
    .where("mapping_uid", "!=", "")
    .execute();
  const stale = held
    .filter((b) => isWithin(b.mapping_uid, provider.uid) && !wantedUids.has(b.mapping_uid))
    .map((b) => b.uid);
  if (stale.length > 0) await trx.deleteFrom("role_bindings").where("uid", "in", stale).execute();
  for (const mapping of wanted) {
    await bind(trx, identityUid, mapping.scope_uid, mapping.role_uid, mapping.uid, time);
  }
}

async function bind(
  trx: Transaction<MetadataSchema>,
  identityUid: string,
  groupUid: string,
  roleUid: string,
  mappingUid: string,
  time: string,
): Promise<void> {
  await trx
    .insertInto("role_bindings")
    .values({
      uid: newChildUid(groupUid),
      parent_uid: groupUid,
      identity_uid: identityUid,
      role_uid: roleUid,
      mapping_uid: mappingUid,
      create_time: time,
      update_time: time,
    })
    .onConflict((oc) => oc.columns(["parent_uid", "identity_uid", "role_uid"]).doNothing())
    .execute();
}
