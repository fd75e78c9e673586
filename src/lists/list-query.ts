import type { Expression, ExpressionBuilder, SqlBool } from "kysely";
import type { MetadataSchema } from "../store/metadata/index.ts";
import type { Visibility } from "./count-plan.ts";
import type { SortField } from "./order-by.ts";

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

/**
 * The tables a List can read: every one has uid and a parent column (parent_uid unless the
 * spec says otherwise) and, unless the spec says uncounted, is counted per parent; gc_runs,
 * the installation's, has neither and is listed only to callers who see every row
 * (`visible.all`), whose pages need no counts.
 */
export type ListedTable =
  | "groups"
  | "identities"
  | "roles"
  | "role_bindings"
  | "repos"
  | "tags"
  | "tag_policies"
  | "group_invites"
  | "terms_acceptances"
  | "identity_providers"
  | "external_group_role_mappings"
  | "account_associations"
  | "advisories"
  | "subscriptions"
  | "library_artifacts"
  | "library_versions"
  | "gc_runs";

/** How one resource is listed. */
export interface ListSpec<T extends ListedTable> {
  table: T;
  /** The error domain, e.g. "iam". */
  domain: string;
  /** Sortable fields by their order_by name. */
  fields: Readonly<Record<string, SortField>>;
  /** The order when order_by is empty. */
  defaultField: string;
  /** The column `visible.childrenOf` matches (default parent_uid). */
  parentColumn?: string;
  /** The table has no per-parent counters: totalCount is always counted from the rows. */
  uncounted?: boolean;
}

/** One List call. */
export interface ListQuery {
  parameters: ListParameters;
  /** Exact-match filters by column; empty values are no filter. Bound into page tokens. */
  filters: Readonly<Record<string, string>>;
  /**
   * Conditions beyond exact matches (sets, substrings, bit masks), with `binding`: their
   * canonical form, bound into page tokens like `filters`.
   */
  conditions?: {
    binding: unknown;
    where: (eb: AnyBuilder) => Expression<SqlBool>;
    /**
     * The conditions select exactly the rows the table's per-parent counters count (e.g.
     * "not withdrawn"), so totalCount may come from the counters.
     */
    counted?: boolean;
  };
  /**
   * Counts the rows faster than the store can (e.g. from a copy in memory), or returns
   * undefined to let the store count. Only asked when the per-parent counters cannot answer.
   */
  countRows?: (scope: {
    visible: Visibility;
    descendantsOf: string;
    childrenOf: string;
  }) => Promise<bigint | undefined>;
  /**
   * Finds the page's keys faster than the store can (e.g. from a copy in memory), or returns
   * undefined to let the store find them: the rows of `visible` (and the uidp filters and
   * conditions) in (`column`, uid) order, descending when `desc`, after `after` (exclusive),
   * `skip` of them skipped, at most `limit`.
   */
  findKeys?: (request: KeysRequest) => Promise<PageKey[] | undefined>;
  /** What the caller may see, from its grants. */
  visible: Visibility;
  /** Who asks: a page token only works for the caller it was issued to. */
  caller: string;
}

/** What {@link ListQuery.findKeys} is asked for. */
export interface KeysRequest {
  visible: Visibility;
  descendantsOf: string;
  childrenOf: string;
  /** The sort column. */
  column: string;
  desc: boolean;
  /** The page token's position: sort value and uid. */
  after: readonly [string, string] | undefined;
  skip: number;
  limit: number;
}

/** One row of a page, by its sort value and uid. */
export interface PageKey {
  uid: string;
  sort_key: string;
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
  list<T extends ListedTable>(
    spec: ListSpec<T>,
    query: ListQuery,
  ): Promise<ListPage<MetadataSchema[T]>>;
}

// biome-ignore lint/suspicious/noExplicitAny: the engine is shared by every listed table
export type AnyBuilder = ExpressionBuilder<any, any>;
