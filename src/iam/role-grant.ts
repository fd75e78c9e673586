import { permissionDenied } from "../errors/index.ts";
import { type Call, Violations } from "../rpc/index.ts";
import type { RolesTable } from "../store/metadata/index.ts";
import { isWithin } from "../uidp/index.ts";
import { type IamContext, iamDomain } from "./iam-context.ts";

/**
 * Loads the role `roleUid` if it may be granted on `group`: a built-in role, or one defined on
 * the group or an ancestor (the roles a role binding there may name). Adds a violation on
 * `field` and returns undefined otherwise.
 */
export async function grantableRole(
  ctx: IamContext,
  v: Violations,
  field: string,
  roleUid: string,
  group: string,
): Promise<RolesTable | undefined> {
  const syntax = new Violations().uid(field, roleUid);
  if (!syntax.empty) {
    v.list.push(...syntax.list);
    return undefined;
  }
  const role = await ctx.db
    .selectFrom("roles")
    .selectAll()
    .where("uid", "=", roleUid)
    .executeTakeFirst();
  if (!role || (role.parent_uid !== "" && !isWithin(group, role.parent_uid))) {
    v.add(field, "must name a built-in role or a role defined on this group or an ancestor");
    return undefined;
  }
  return role;
}

/** The dotted capability names a stored role holds. */
export function roleCapabilities(role: Pick<RolesTable, "capabilities">): string[] {
  return JSON.parse(role.capabilities) as string[];
}

/**
 * The one rule behind every path that changes what a role binding grants, or to whom: nobody
 * grants what they lack. Refuses (PERMISSION_DENIED, naming what is missing) a caller that does
 * not hold every one of `capabilities` on `group`, the group the grant takes effect on (a
 * binding there also grants on every descendant, so holding them on `group` covers those).
 */
export async function requireCanGrant(
  call: Call,
  capabilities: readonly string[],
  group: string,
): Promise<void> {
  if (capabilities.length === 0) return;
  const grants = await call.principal?.grants();
  const missing = capabilities.filter((c) => !grants?.can(c, group));
  if (missing.length > 0) {
    throw permissionDenied(
      iamDomain,
      `granting needs capabilities the caller lacks on ${group}: ${missing.join(", ")}`,
    );
  }
}

/** requireCanGrant for every capability of `role`, granted on `group`. */
export function requireRoleCapabilities(
  call: Call,
  role: RolesTable,
  group: string,
): Promise<void> {
  return requireCanGrant(call, roleCapabilities(role), group);
}

/**
 * requireCanGrant for each stored grant of `grants` (a role's capabilities on a group): used
 * where a change hands existing grants to someone else (an identity's credentials, a provider's
 * issuer or groups claim).
 */
export async function requireCanGrantAll(
  call: Call,
  grants: readonly { capabilities: string; group: string }[],
): Promise<void> {
  for (const grant of grants) await requireCanGrant(call, roleCapabilities(grant), grant.group);
}

/** Refuses a caller that lacks `capability` on `at` (after it was allowed to see the resource). */
export async function requireCapability(call: Call, capability: string, at: string): Promise<void> {
  const grants = await call.principal?.grants();
  if (!grants?.can(capability, at))
    throw permissionDenied(iamDomain, `${capability} is required on ${at}`);
}
