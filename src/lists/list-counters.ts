import { type Kysely, sql } from "kysely";
import type { CountPlan } from "./count-plan.ts";
import type { ListedTable } from "./list-query.ts";

// biome-ignore lint/suspicious/noExplicitAny: the table is chosen at run time
type AnyDb = Kysely<any>;

/** Adds up the per-parent counters (and the scope rows themselves) named by `plan`. */
export async function countFromCounters(
  db: AnyDb,
  table: ListedTable,
  plan: CountPlan,
): Promise<bigint> {
  const parents = [...plan.below, ...plan.children];
  const [counted, selves] = await Promise.all([
    parents.length === 0
      ? { n: 0 }
      : db
          .selectFrom("list_counts")
          .select((eb) => eb.fn.coalesce(eb.fn.sum<string | number>("n"), sql<number>`0`).as("n"))
          .where("table_name", "=", table)
          .where((eb) =>
            eb.or([
              ...(parents.length > 0 ? [eb("parent_uid", "in", parents)] : []),
              ...plan.below.map((b) =>
                eb.and([eb("parent_uid", ">", `${b}/`), eb("parent_uid", "<", `${b}0`)]),
              ),
            ]),
          )
          .executeTakeFirstOrThrow(),
    plan.selves.length === 0
      ? { n: 0 }
      : db
          .selectFrom(table as string)
          .select((eb) => eb.fn.countAll<string | number>().as("n"))
          .where("uid", "in", plan.selves)
          .executeTakeFirstOrThrow(),
  ]);
  return BigInt(counted.n) + BigInt(selves.n);
}

/** The rows of a counted table, as its counters hold them; at most `maxAgeMs` old. */
export type TableRows = (table: ListedTable) => Promise<bigint>;

/**
 * Reads whole-table sizes from the counters, keeping each for `maxAgeMs`: adding up every
 * parent's counter costs one index entry per parent, and a size a few seconds old is as good
 * for telling a scope that holds most of the table from one that does not.
 */
export function tableRowsFromCounters(db: AnyDb, maxAgeMs = 5_000): TableRows {
  const known = new Map<ListedTable, { rows: Promise<bigint>; at: number }>();
  return (table) => {
    const now = Date.now();
    const entry = known.get(table);
    if (entry && now - entry.at < maxAgeMs) return entry.rows;
    const rows = db
      .selectFrom("list_counts")
      .select((eb) => eb.fn.coalesce(eb.fn.sum<string | number>("n"), sql<number>`0`).as("n"))
      .where("table_name", "=", table)
      .executeTakeFirstOrThrow()
      .then((r) => BigInt(r.n));
    known.set(table, { rows, at: now });
    rows.catch(() => known.delete(table));
    return rows;
  };
}
