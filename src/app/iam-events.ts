import type { Kysely } from "kysely";
import type { OnSignInChanges } from "../auth/index.ts";
import { type EventActor, recordRpcEvent } from "../events/index.ts";
import { GroupsService } from "../gen/lading/iam/v2/groups_pb.js";
import { IdentitiesService } from "../gen/lading/iam/v2/identities_pb.js";
import { RoleBindingsService } from "../gen/lading/iam/v2/role_bindings_pb.js";
import { groupFromRow, hydrateRoleBindings, identityFromRow } from "../iam/index.ts";
import type {
  GroupsTable,
  IdentitiesTable,
  MetadataSchema,
  RoleBindingsTable,
} from "../store/metadata/index.ts";

/**
 * The actor of changes made by `lading admin` commands, which act on the store with no token
 * and no identity: no subject (so no Ce-Actor header), and `act.sub` naming the local
 * administrator, so a receiver can tell them from API calls (docs/events.md).
 */
export const adminActor: EventActor = Object.freeze({
  subject: "",
  act: Object.freeze({ sub: "lading-admin" }),
}) as EventActor;

/** Records `dev.lading.iam.group.created.v1` for a group made outside the API. */
export function recordGroupCreated(
  db: Kysely<MetadataSchema>,
  apiUrl: string,
  actor: EventActor,
  row: GroupsTable,
): Promise<void> {
  return recordRpcEvent(db, {
    service: GroupsService,
    method: "createGroup",
    apiUrl,
    actor,
    body: groupFromRow(row),
  });
}

/**
 * Records `dev.lading.iam.identity.created.v1` for an identity made outside the API; Ce-Group
 * `groupUid` when given (a signed-in user, a root identity, reports to its provider's group).
 */
export function recordIdentityCreated(
  db: Kysely<MetadataSchema>,
  apiUrl: string,
  actor: EventActor,
  row: IdentitiesTable,
  groupUid?: string,
): Promise<void> {
  return recordRpcEvent(db, {
    service: IdentitiesService,
    method: "createIdentity",
    apiUrl,
    actor,
    body: identityFromRow(row),
    groupUid,
  });
}

/** Records `dev.lading.iam.role_binding.created.v1` for each binding, hydrated as the API answers. */
export async function recordRoleBindingsCreated(
  db: Kysely<MetadataSchema>,
  apiUrl: string,
  actor: EventActor,
  rows: RoleBindingsTable[],
): Promise<void> {
  for (const body of await hydrateRoleBindings(db, rows)) {
    await recordRpcEvent(db, {
      service: RoleBindingsService,
      method: "createRoleBinding",
      apiUrl,
      actor,
      body,
    });
  }
}

/** Records `dev.lading.iam.role_binding.deleted.v1` (body `{uid}`) for each binding. */
export async function recordRoleBindingsDeleted(
  db: Kysely<MetadataSchema>,
  apiUrl: string,
  actor: EventActor,
  rows: Pick<RoleBindingsTable, "uid">[],
): Promise<void> {
  for (const row of rows) {
    await recordRpcEvent(db, {
      service: RoleBindingsService,
      method: "deleteRoleBinding",
      apiUrl,
      actor,
      body: { uid: row.uid },
    });
  }
}

/**
 * The sign-in hook of a server at `apiUrl`: records what a sign-in changed as the API records
 * the same changes. The actor is the signed-in user, with the claims of the id token it
 * signed in with (the `act` of the tokens it is issued).
 */
export function signInEvents(apiUrl: string): OnSignInChanges {
  return async (db, changes) => {
    const { claims } = changes;
    const act: Record<string, string> = {};
    for (const key of ["iss", "sub", "aud"] as const) {
      const value = claims[key];
      if (typeof value === "string") act[key] = value;
      else if (Array.isArray(value)) act[key] = value.join(" ");
    }
    const actor: EventActor = { subject: changes.identityUid, act };
    if (changes.created) {
      await recordIdentityCreated(db, apiUrl, actor, changes.created, changes.provider.parent_uid);
    }
    await recordRoleBindingsCreated(db, apiUrl, actor, changes.bound);
    await recordRoleBindingsDeleted(db, apiUrl, actor, changes.unbound);
  };
}
