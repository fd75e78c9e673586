import { createHash } from "node:crypto";
import type { JWTPayload } from "jose";
import type { Kysely, Transaction } from "kysely";
import {
  type IdentitiesTable,
  type IdentityProvidersTable,
  identityExtras,
  type MetadataSchema,
  type RoleBindingsTable,
} from "../store/metadata/index.ts";
import { isWithin, newChildUid } from "../uidp/index.ts";

/** The identity of a user signed in through an identity provider. */
export interface SignedInUser {
  uid: string;
  /** True when this sign-in created the identity. */
  created: boolean;
}

/** What one sign-in changed besides lastSeenTime and the email: what the API would report. */
export interface SignInChanges {
  /** The signed-in user's identity uid. */
  identityUid: string;
  /** The provider signed in through. */
  provider: IdentityProvidersTable;
  /** The verified id token's claims. */
  claims: JWTPayload;
  /** The identity, when this sign-in created it. */
  created?: IdentitiesTable;
  /** Role bindings made: the provider's default role, group mappings now matched. */
  bound: RoleBindingsTable[];
  /** Role bindings of group mappings no longer matched, removed. */
  unbound: RoleBindingsTable[];
}

/**
 * Called inside the sign-in's transaction when it created the identity or changed its role
 * bindings, so that what it records (events) commits with the change or not at all. Auth
 * knows nothing of events: the server passes this in.
 */
export type OnSignInChanges = (db: Kysely<MetadataSchema>, changes: SignInChanges) => Promise<void>;

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
 * API, mapping_uid "", are never touched). `onChanges` is told, in that transaction, what the
 * sign-in created or removed, when it did.
 */
export async function upsertSignedInUser(
  db: Kysely<MetadataSchema>,
  provider: IdentityProvidersTable,
  claims: JWTPayload,
  onChanges?: OnSignInChanges,
): Promise<SignedInUser> {
  const issuer = String(claims.iss);
  const subject = String(claims.sub);
  const uid = userIdentityUid(issuer, subject);
  const email =
    claims.email_verified === true && typeof claims.email === "string" ? claims.email : "";
  const time = new Date().toISOString();
  return db.transaction().execute(async (trx) => {
    const row: IdentitiesTable = {
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
    };
    const inserted = await trx
      .insertInto("identities")
      .values(row)
      .onConflict((oc) => oc.column("uid").doNothing())
      .executeTakeFirst();
    const created = Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0;
    const changes: SignInChanges = {
      identityUid: uid,
      provider,
      claims,
      created: created ? row : undefined,
      bound: [],
      unbound: [],
    };
    if (created) {
      if (provider.default_role_uid) {
        const binding = await bind(
          trx,
          uid,
          provider.parent_uid,
          provider.default_role_uid,
          "",
          time,
        );
        if (binding) changes.bound.push(binding);
      }
    } else {
      await trx
        .updateTable("identities")
        .set({ email, provider_uid: provider.uid, last_seen_time: time })
        .where("uid", "=", uid)
        .execute();
    }
    await reconcileMappings(trx, changes, groupsOf(claims, provider.groups_claim), time);
    if (onChanges && (changes.created || changes.bound.length > 0 || changes.unbound.length > 0)) {
      await onChanges(trx, changes);
    }
    return { uid, created };
  });
}

async function reconcileMappings(
  trx: Transaction<MetadataSchema>,
  changes: SignInChanges,
  groups: string[],
  time: string,
): Promise<void> {
  const { provider, identityUid } = changes;
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
    .selectAll()
    .where("identity_uid", "=", identityUid)
    .where("mapping_uid", "!=", "")
    .execute();
  const stale = held.filter(
    (b) => isWithin(b.mapping_uid, provider.uid) && !wantedUids.has(b.mapping_uid),
  );
  if (stale.length > 0) {
    await trx
      .deleteFrom("role_bindings")
      .where(
        "uid",
        "in",
        stale.map((b) => b.uid),
      )
      .execute();
    changes.unbound.push(...stale);
  }
  for (const mapping of wanted) {
    const binding = await bind(
      trx,
      identityUid,
      mapping.scope_uid,
      mapping.role_uid,
      mapping.uid,
      time,
    );
    if (binding) changes.bound.push(binding);
  }
}

/** Binds the role unless the identity already holds it there; the binding made, if any. */
async function bind(
  trx: Transaction<MetadataSchema>,
  identityUid: string,
  groupUid: string,
  roleUid: string,
  mappingUid: string,
  time: string,
): Promise<RoleBindingsTable | undefined> {
  const row: RoleBindingsTable = {
    uid: newChildUid(groupUid),
    parent_uid: groupUid,
    identity_uid: identityUid,
    role_uid: roleUid,
    mapping_uid: mappingUid,
    create_time: time,
    update_time: time,
  };
  const inserted = await trx
    .insertInto("role_bindings")
    .values(row)
    .onConflict((oc) => oc.columns(["parent_uid", "identity_uid", "role_uid"]).doNothing())
    .executeTakeFirst();
  return Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 ? row : undefined;
}
