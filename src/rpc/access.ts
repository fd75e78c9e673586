import { notFound, permissionDenied } from "../errors/index.ts";
import type { Call } from "./call.ts";

/** What an access check is about. */
export interface AccessCheck {
  /** Capability that lets the caller see the resource, e.g. `identity.list`. */
  see: string;
  /** Capability the operation needs; omit for reads. */
  act?: string;
  /** The uid the capabilities must hold at: the resource's group or the resource itself. */
  at: string;
  domain: string;
  resourceType: string;
  resourceName: string;
}

/**
 * Refuses a caller that lacks a capability. A caller that cannot even see the resource gets
 * NOT_FOUND, exactly as if it did not exist, so it learns nothing; one that sees it but may not
 * act gets PERMISSION_DENIED (docs/decisions.md).
 */
export async function requireAccess(call: Call, check: AccessCheck): Promise<void> {
  const grants = await call.principal?.grants();
  if (!grants?.can(check.see, check.at)) {
    throw notFound(check.domain, check.resourceType, check.resourceName);
  }
  if (check.act && !grants.can(check.act, check.at)) {
    throw permissionDenied(check.domain, `${check.act} is required on ${check.at}`);
  }
}

/** The subtrees in which the caller holds `capability`. */
export async function scopesOf(call: Call, capability: string): Promise<string[]> {
  const grants = await call.principal?.grants();
  return grants?.scopes(capability) ?? [];
}
