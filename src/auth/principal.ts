import type { JWTPayload } from "jose";

/** What the caller may do, resolved from its role bindings at request time. */
export interface Grants {
  /** True when the caller holds `capability` at `uid` (a group, or anything under a group). */
  can(capability: string, uid: string): boolean;
  /**
   * The uids of the groups whose subtrees grant `capability`, none nested in another
   * (already cut to the identity's reach). Lists filter on these.
   */
  scopes(capability: string): string[];
}

/** An authenticated caller. */
export interface Principal {
  /** The caller's identity uid (the token's `sub`). */
  identityUid: string;
  /** The verified token claims. */
  claims: JWTPayload;
  /** The caller's grants, loaded once per request on first use. */
  grants(): Promise<Grants>;
}
