import type { Grants, TokenClaims } from "../../auth/index.ts";
import {
  allowedActions,
  type RegistryAction,
  type RepoPath,
} from "../../registry/registry-access.ts";
import type { AccessEntry, RegistryCaller } from "./registry-auth.ts";

/**
 * The actions last worked out for each grants, and for which target. A request asks about one
 * target more than once (its actions, then the free tier), and requests whose facts were
 * reused share the grants and the target objects (caching-facts-reader.ts); both never change.
 */
const lastAllowed = new WeakMap<
  Grants,
  { target: RepoPath; allowed: ReadonlySet<RegistryAction> }
>();

/**
 * The caller of a Lading token: the actions its grants allow, and `pull` anywhere `isPublic`
 * (where, without a grant of its own, it reaches only the free tier).
 */
export function ladingTokenCaller(
  claims: TokenClaims,
  grants: Grants,
  isPublic: (target: RepoPath) => boolean,
): RegistryCaller {
  const granted = (target: RepoPath) => {
    const last = lastAllowed.get(grants);
    if (last?.target === target) return last.allowed;
    const allowed: ReadonlySet<RegistryAction> = allowedActions(grants, target);
    lastAllowed.set(grants, { target, allowed });
    return allowed;
  };
  return {
    subject: claims.sub,
    anonymous: false,
    scoped: false,
    grants,
    access: [],
    actions(target) {
      const actions = new Set(granted(target));
      if (isPublic(target)) actions.add("pull");
      return actions;
    },
    freeTierOnly: (target) => isPublic(target) && !granted(target).has("pull"),
  };
}

/** The caller of a registry token: its actions are those of its `access` claim. */
export function scopedCaller(claims: TokenClaims, access: unknown[]): RegistryCaller {
  const entries = access.filter(isAccessEntry);
  const anonymous = claims.sub === "anonymous";
  const { free_tier: freeTier } = claims as { free_tier?: unknown };
  const limited = new Set(Array.isArray(freeTier) ? freeTier : []);
  return {
    subject: claims.sub,
    anonymous,
    scoped: true,
    grants: undefined,
    access: entries,
    actions: (target: RepoPath) =>
      new Set(entries.filter((e) => e.name === target.path).flatMap((e) => e.actions)),
    freeTierOnly: (target: RepoPath) => anonymous || limited.has(target.path),
  };
}

function isAccessEntry(value: unknown): value is AccessEntry {
  const entry = value as AccessEntry;
  return (
    typeof entry === "object" &&
    entry !== null &&
    entry.type === "repository" &&
    typeof entry.name === "string" &&
    Array.isArray(entry.actions)
  );
}
