import type { Expression, ReferenceExpression, SqlBool } from "kysely";
import { sql } from "kysely";
import { isWithin } from "../uidp/index.ts";
import type { Visibility } from "./count-plan.ts";
import type { AnyBuilder } from "./list-query.ts";

/** How a scope term names its column: plainly, or hidden from the indexes. */
// biome-ignore lint/suspicious/noExplicitAny: the engine is shared by every listed table
export type ScopeKey = (column: string) => ReferenceExpression<any, any>;
export const plainKey: ScopeKey = (column) => column;
/** `+column`: the same value, but SQLite uses no index for a term on it. */
export const hiddenKey: ScopeKey = (column) => sql`+${sql.ref(column)}`;

/** The scopes that lie within no other scope. */
export function outermost(scopes: readonly string[]): string[] {
  const unique = [...new Set(scopes)];
  return unique.filter((s) => !unique.some((t) => t !== s && isWithin(s, t)));
}

/** Rows within the visible subtrees, or children (by `parentColumn`) of the visible parents. */
export function visibleTo(
  eb: AnyBuilder,
  visible: Visibility,
  parentColumn = "parent_uid",
  key: ScopeKey = plainKey,
): Expression<SqlBool> {
  if (visible.all) return sql<SqlBool>`1 = 1`;
  const uid = key("uid");
  const terms: Expression<SqlBool>[] = visible.scopes.flatMap((s) => [
    eb(uid, "=", s),
    eb.and([eb(uid, ">", `${s}/`), eb(uid, "<", `${s}0`)]),
  ]);
  for (const parent of visible.childrenOf ?? []) terms.push(eb(key(parentColumn), "=", parent));
  return terms.length > 0 ? eb.or(terms) : sql<SqlBool>`1 = 0`;
}
