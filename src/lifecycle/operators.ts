import { permissionDenied, unauthenticated } from "../errors/index.ts";
import type { Call } from "../rpc/index.ts";
import { lifecycleDomain } from "./storage-service.ts";

/**
 * Lets through only the installation's operators: the identities the server's `operators`
 * setting names, calling with a token of their whole reach. A token narrowed to some groups
 * (`scopes`) was made to do less than its identity may, so it is no operator's. No API call
 * changes the setting, so nobody becomes an operator through the API.
 */
export function operatorCheck(operators: readonly string[]): (call: Call) => void {
  const uids = new Set(operators);
  return (call) => {
    const principal = call.principal;
    // The doors refuse a call without credentials first; this covers a door that would not.
    if (!principal) throw unauthenticated("TOKEN_MISSING", "credentials are required");
    if (!uids.has(principal.identityUid) || principal.claims.scopes !== undefined) {
      throw permissionDenied(
        lifecycleDomain,
        "only the installation's operators (the server's operators setting) may do this",
      );
    }
  };
}
