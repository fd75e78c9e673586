import { isWithin, parentOf } from "../uidp/index.ts";

/** What a caller may see: whole subtrees, and all children of some parents. */
export interface Visibility {
  /** Group uids whose subtree (the group itself included) is visible. Never nested. */
  scopes: readonly string[];
  /** Parent uids all of whose children are visible (built-in roles: ""). */
  childrenOf?: readonly string[];
  /**
   * Every row: for the installation's rows, which lie in no group, once the caller was
   * admitted by a check of its own (garbage collections: the operators).
   */
  all?: boolean;
}

/**
 * A count expressed over the per-parent counters: rows strictly below each `below` uid, rows
 * directly under each `children` uid, plus the rows whose uid is in `selves`.
 */
export interface CountPlan {
  below: string[];
  children: string[];
  selves: string[];
}

/**
 * Plans totalCount for rows visible under `visibility` and inside the uidp filters, or returns
 * undefined when the counters cannot answer (both uidp filters at once) and rows must be
 * counted. The visible pieces are disjoint, so their counts add up.
 */
export function planCount(
  visibility: Visibility,
  descendantsOf: string,
  childrenOf: string,
): CountPlan | undefined {
  if (descendantsOf !== "" && childrenOf !== "") return undefined;
  const plan: CountPlan = { below: [], children: [], selves: [] };
  for (const scope of visibility.scopes) {
    if (descendantsOf !== "") {
      if (isWithin(descendantsOf, scope)) plan.below.push(descendantsOf);
      else if (isWithin(scope, descendantsOf)) {
        plan.below.push(scope);
        plan.selves.push(scope);
      }
    } else if (childrenOf !== "") {
      if (isWithin(childrenOf, scope)) plan.children.push(childrenOf);
      else if (parentOf(scope) === childrenOf) plan.selves.push(scope);
    } else {
      plan.below.push(scope);
      plan.selves.push(scope);
    }
  }
  for (const parent of visibility.childrenOf ?? []) {
    const inFilter =
      descendantsOf !== ""
        ? parent !== "" && isWithin(parent, descendantsOf)
        : childrenOf === "" || childrenOf === parent;
    if (inFilter) plan.children.push(parent);
  }
  plan.below = [...new Set(plan.below)];
  plan.children = [...new Set(plan.children)];
  return plan;
}
