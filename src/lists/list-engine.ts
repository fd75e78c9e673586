import { type Expression, type Kysely, PostgresAdapter, type SqlBool, sql } from "kysely";
import { type FieldViolation, invalidArgument } from "../errors/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { descendantRange, isUidp, isWithin } from "../uidp/index.ts";
import { planCount } from "./count-plan.ts";
import { countFromCounters, tableRowsFromCounters } from "./list-counters.ts";
import {
  type AnyBuilder,
  defaultPageSize,
  type ListEngine,
  maxPageSize,
  type PageKey,
} from "./list-query.ts";
import { parseOrderBy } from "./order-by.ts";
import type { PageTokens } from "./page-token.ts";
import { hiddenKey, outermost, plainKey, type ScopeKey, visibleTo } from "./scope-terms.ts";

// biome-ignore lint/suspicious/noExplicitAny: the table is chosen at run time
type AnyDb = Kysely<any>;

/** Creates the list engine over `db`, signing page tokens with `tokens`. */
export function createListEngine(db: Kysely<MetadataSchema>, tokens: PageTokens): ListEngine {
  const anyDb = db as AnyDb;
  const tableRows =
    db.getExecutor().adapter instanceof PostgresAdapter ? undefined : tableRowsFromCounters(anyDb);
  return {
    async list(spec, query) {
      const p = query.parameters;
      const descendantsOf = p.uidp?.descendantsOf ?? "";
      const childrenOf = p.uidp?.childrenOf ?? "";
      const violations: FieldViolation[] = [];
      const order = parseOrderBy(p.orderBy, spec.fields, spec.defaultField);
      if (order.error) violations.push(order.error);
      if (p.pageSize < 0)
        violations.push({ field: "page_size", description: "must not be negative" });
      if (p.skip < 0) violations.push({ field: "skip", description: "must not be negative" });
      for (const [field, uid] of [
        ["uidp.descendants_of", descendantsOf],
        ["uidp.children_of", childrenOf],
      ]) {
        if (uid !== "" && !isUidp(uid)) violations.push({ field, description: "must be a uid" });
      }
      const binding = [
        spec.table,
        order.value?.field,
        order.value?.desc,
        query.filters,
        query.conditions?.binding ?? null,
        descendantsOf,
        childrenOf,
        query.visible.childrenOf,
        query.caller,
      ];
      const cursor = tokens.read(p.pageToken, binding);
      if (cursor.error) violations.push(cursor.error);
      if (violations.length > 0 || !order.value) throw invalidArgument(spec.domain, violations);

      const { sort, desc } = order.value;
      const sortExpr = sort.nullable
        ? sql<string>`coalesce(${sql.ref(sort.column)}, '')`
        : sql.ref<string>(sort.column);
      // A uidp filter inside a visible subtree already implies visibility; leaving the OR of
      // every scope out lets the planner walk the sort index instead of sorting the range.
      const filterRoot = descendantsOf || childrenOf;
      const impliedVisible =
        filterRoot !== "" && query.visible.scopes.some((s) => isWithin(filterRoot, s));
      const where = (eb: AnyBuilder, key: ScopeKey = plainKey): Expression<SqlBool> =>
        filtered(
          eb,
          impliedVisible ? [] : [visibleTo(eb, query.visible, spec.parentColumn, key)],
          key,
        );
      const filtered = (
        eb: AnyBuilder,
        first: Expression<SqlBool>[],
        key: ScopeKey = plainKey,
      ): Expression<SqlBool> => {
        const terms: Expression<SqlBool>[] = [...first];
        for (const [column, value] of Object.entries(query.filters)) {
          if (value !== "") terms.push(eb(column, "=", value));
        }
        if (query.conditions) terms.push(query.conditions.where(eb));
        if (descendantsOf !== "") {
          const range = descendantRange(descendantsOf);
          terms.push(eb(key("uid"), ">", range.low), eb(key("uid"), "<", range.high));
        }
        if (childrenOf !== "") terms.push(eb(key("parent_uid"), "=", childrenOf));
        return eb.and(terms);
      };
      const size = Math.min(p.pageSize === 0 ? defaultPageSize : p.pageSize, maxPageSize);
      const direction = desc ? "desc" : "asc";
      // Find the page's uids on the (sort, uid) index alone, then read those rows: with a
      // large skip the index is walked, not the table.
      const keysWhere = (key: ScopeKey) => {
        const keys = anyDb
          .selectFrom(spec.table as string)
          .where((eb) => where(eb, key))
          .select(["uid", sql<string>`${sortExpr}`.as("sort_key")]);
        if (!cursor.value) return keys;
        const [value, uid] = cursor.value;
        return keys.where(
          sql<SqlBool>`(${sortExpr}, uid) ${sql.raw(desc ? "<" : ">")} (${value}, ${uid})`,
        );
      };
      const hasFilters =
        (query.conditions !== undefined && !query.conditions.counted) ||
        Object.values(query.filters).some((v) => v !== "");
      const scopePlan =
        spec.uncounted || query.visible.all
          ? undefined
          : planCount(query.visible, descendantsOf, childrenOf);
      const plan = hasFilters ? undefined : scopePlan;
      let scopeRows: Promise<bigint> | undefined;
      const inScope = (counts: NonNullable<typeof scopePlan>) =>
        (scopeRows ??= countFromCounters(anyDb, spec.table, counts));
      // Node's SQLite has no STAT4 histograms, so its planner takes any uid range (or parent)
      // for a small part of the table and reads all of it and sorts, even when it is the whole
      // table. The counters know better: when the caller's scopes hold at least half of the
      // table, their terms are hidden from the indexes (unary +) and the page walks the sort
      // index. Half is where that walk is never much worse than the range, whatever the order
      // of the other rows: it passes at most as many other entries as the range holds rows,
      // and usually stops after a page. Below half the range is kept (docs/decisions.md).
      const walksSortIndex = async () => {
        if (!tableRows || !scopePlan) return false;
        const [rows, table] = await Promise.all([inScope(scopePlan), tableRows(spec.table)]);
        return table > 0n && rows * 2n >= table;
      };
      const countWhere = (w: (eb: AnyBuilder) => Expression<SqlBool>) =>
        anyDb
          .selectFrom(spec.table as string)
          .where(w)
          .select((eb) => eb.fn.countAll<string | number | bigint>().as("n"))
          .executeTakeFirstOrThrow()
          .then((r) => BigInt(r.n));
      // Several visible subtrees OR-ed together hide the uid ranges from the index: count each
      // subtree on its own range (scopes never overlap once nested ones are dropped) and add.
      const scopes = outermost(query.visible.scopes);
      const perScope = !impliedVisible && !query.visible.childrenOf?.length && scopes.length > 1;
      const countedByStore = () =>
        perScope
          ? Promise.all(
              scopes.map((scope) =>
                countWhere((eb) =>
                  filtered(eb, [eb("uid", ">=", scope), eb("uid", "<", `${scope}0`)]),
                ),
              ),
            ).then((counts) => counts.reduce((a, b) => a + b, 0n))
          : countWhere(where);
      // A first page reads its rows with its keys: one round trip instead of two. Past a skip,
      // the keys alone walk the (sort, uid) index and only the page's rows are read.
      let keysCarryRows = false;
      const storeKeys = async (): Promise<PageKey[]> => {
        const keys = keysWhere((await walksSortIndex()) ? hiddenKey : plainKey);
        keysCarryRows = p.skip === 0;
        return (keysCarryRows ? keys.selectAll() : keys)
          .orderBy(sortExpr, direction)
          .orderBy("uid", direction)
          .limit(size + 1)
          .offset(p.skip)
          .execute();
      };
      const findKeys = async () =>
        (await query.findKeys?.({
          visible: query.visible,
          descendantsOf,
          childrenOf,
          column: sort.column,
          desc,
          after: cursor.value as readonly [string, string] | undefined,
          skip: p.skip,
          limit: size + 1,
        })) ?? storeKeys();
      const counted = async () =>
        (await query.countRows?.({ visible: query.visible, descendantsOf, childrenOf })) ??
        countedByStore();
      const [totalCount, found] = await Promise.all([plan ? inScope(plan) : counted(), findKeys()]);
      const pageKeys = found.slice(0, size);
      const byUid = new Map<string, MetadataSchema[typeof spec.table]>();
      type Row = MetadataSchema[typeof spec.table];
      if (keysCarryRows) {
        for (const { sort_key: _, ...row } of pageKeys as (PageKey & Row)[]) {
          byUid.set(row.uid, row as unknown as Row);
        }
      } else if (pageKeys.length > 0) {
        const uids = pageKeys.map((k: { uid: string }) => k.uid);
        const read = await anyDb
          .selectFrom(spec.table as string)
          .selectAll()
          .where("uid", "in", uids)
          .execute();
        for (const row of read as Row[]) byUid.set(row.uid, row);
      }
      const rows = pageKeys
        .map((k: { uid: string }) => byUid.get(k.uid))
        .filter((r): r is Row => r !== undefined);
      const last = pageKeys.at(-1);
      const nextPageToken =
        found.length > size && last
          ? tokens.issue(binding, [String(last.sort_key ?? ""), last.uid])
          : "";
      return { rows, nextPageToken, totalCount, skipped: p.skip };
    },
  };
}
