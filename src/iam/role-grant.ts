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

/**
 * Refuses a caller that lacks any capability of `role` on `group`: no one hands out, directly
 * or through sign-in, more than they hold themselves (the rule role bindings enforce).
 */
export async function requireRoleCapabilities(
  call: Call,
  role: RolesTable,
  group: string,
): Promise<void> {
  const grants = await call.principal?.grants();
  const missing = (JSON.parse(role.capabilities) as string[]).filter((c) => !grants?.can(c, group));
  if (missing.length > 0) {
    throw permissionDenied(
      iamDomain,
      `granting this role needs capabilities the caller lacks on ${group}: ${missing.join(", ")}`,
    );
  }
}

/** Refuses a caller that lacks `capability` on `at` (after it was allowed to see the resource). */
export async function requireCapability(call: Call, capability: string, at: string): Promise<void> {
  const grants = await call.principal?.grants();
  if (!grants?.can(capability, at))
    throw permissionDenied(iamDomain, `${capability} is required on ${at}`);
}
