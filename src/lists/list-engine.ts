import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool, sql } from "kysely";
import { type FieldViolation, invalidArgument } from "../errors/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { descendantRange, isUidp } from "../uidp/index.ts";
import { parseOrderBy, type SortField } from "./order-by.ts";
import type { Cursor, PageTokens } from "./page-token.ts";

/** Results per page when page_size is 0 or absent (spec Limits). */
export const defaultPageSize = 50;
/** The largest page; larger page_size values are lowered to it (AIP-158). */
export const maxPageSize = 200;

/** The list parameters every List request carries. */
export interface ListParameters {
  uidp?: { descendantsOf: string; childrenOf: string };
  pageSize: number;
  pageToken: string;
  orderBy: string;
  skip: number;
}

/** How one resource is listed. */
export interface ListSpec<T extends keyof MetadataSchema> {
  table: T;
  /** The error domain, e.g. "iam". */
  domain: string;
  /** Sortable fields by their order_by name. */
  fields: Readonly<Record<string, SortField>>;
  /** The order when order_by is empty. */
  defaultField: string;
}

// biome-ignore lint/suspicious/noExplicitAny: the engine is shared by every table
type AnyBuilder = ExpressionBuilder<any, any>;

/** One List call. */
export interface ListQuery {
  parameters: ListParameters;
  /** Exact-match filters by column; empty values are no filter. Bound into page tokens. */
  filters: Readonly<Record<string, string>>;
  /** What the caller may see; the service builds it from the caller's grants. */
  visible: (eb: AnyBuilder) => Expression<SqlBool>;
  /** Who asks: a page token only works for the caller it was issued to. */
  caller: string;
}

/** One page. */
export interface ListPage<Row> {
  rows: Row[];
  nextPageToken: string;
  totalCount: bigint;
  skipped: number;
}

/** The list machinery every List RPC shares: filters, order_by, keyset pages, skip, counts. */
export interface ListEngine {
  list<T extends keyof MetadataSchema>(
    spec: ListSpec<T>,
    query: ListQuery,
  ): Promise<ListPage<MetadataSchema[T]>>;
}

/** Creates the list engine over `db`, signing page tokens with `tokens`. */
export function createListEngine(db: Kysely<MetadataSchema>, tokens: PageTokens): ListEngine {
  return {
    async list(spec, query) {
      const { parameters: p } = query;
      const violations: FieldViolation[] = [];
      const order = parseOrderBy(p.orderBy, spec.fields, spec.defaultField);
      if (order.error) violations.push(order.error);
      if (p.pageSize < 0)
        violations.push({ field: "page_size", description: "must not be negative" });
      if (p.skip < 0) violations.push({ field: "skip", description: "must not be negative" });
      const descendantsOf = p.uidp?.descendantsOf ?? "";
      const childrenOf = p.uidp?.childrenOf ?? "";
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
        descendantsOf,
        childrenOf,
        query.caller,
      ];
      const cursor = tokens.read(p.pageToken, binding);
      if (cursor.error) violations.push(cursor.error);
      if (violations.length > 0 || !order.value) throw invalidArgument(spec.domain, violations);

      const { sort, desc } = order.value;
      const sortExpr = sort.nullable
        ? sql<string>`coalesce(${sql.ref(sort.column)}, '')`
        : sql.ref<string>(sort.column);
      const where = (eb: AnyBuilder): Expression<SqlBool> => {
        const terms: Expression<SqlBool>[] = [query.visible(eb)];
        for (const [column, value] of Object.entries(query.filters)) {
          if (value !== "") terms.push(eb(column, "=", value));
        }
        if (descendantsOf !== "") {
          const range = descendantRange(descendantsOf);
          terms.push(eb("uid", ">", range.low), eb("uid", "<", range.high));
        }
        if (childrenOf !== "") terms.push(eb("parent_uid", "=", childrenOf));
        return eb.and(terms);
      };
      // biome-ignore lint/suspicious/noExplicitAny: table chosen at run time
      const base = (db as Kysely<any>).selectFrom(spec.table as string).where(where);
      const size = Math.min(p.pageSize === 0 ? defaultPageSize : p.pageSize, maxPageSize);
      const direction = desc ? "desc" : "asc";
      let page = base.selectAll();
      if (cursor.value) {
        const [value, uid] = cursor.value as Cursor;
        page = page.where(
          (eb) =>
            sql<SqlBool>`(${sortExpr}, ${eb.ref("uid")}) ${sql.raw(desc ? "<" : ">")} (${value}, ${uid})`,
        );
      }
      const [count, rows] = await Promise.all([
        base
          .select((eb) => eb.fn.countAll<string | number | bigint>().as("n"))
          .executeTakeFirstOrThrow(),
        page
          .orderBy(sortExpr, direction)
          .orderBy("uid", direction)
          .limit(size + 1)
          .offset(p.skip)
          .execute(),
      ]);
      let nextPageToken = "";
      if (rows.length > size) {
        rows.length = size;
        const last = rows[size - 1];
        nextPageToken = tokens.issue(binding, [String(last[sort.column] ?? ""), last.uid]);
      }
      return {
        rows: rows as MetadataSchema[typeof spec.table][],
        nextPageToken,
        totalCount: BigInt(count.n),
        skipped: p.skip,
      };
    },
  };
}
