import type { Kysely } from "kysely";
import { invalidArgument, notFound } from "../errors/index.ts";
import type {
  ListEngine,
  ListedTable,
  ListParameters,
  ListSpec,
  SortField,
} from "../lists/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { scopesOf } from "./access.ts";
import type { Call } from "./call.ts";
import { findVisibleRow, loadVisibleRow } from "./visible-rows.ts";

type Row<T extends ListedTable> = MetadataSchema[T];

/**
 * What the API needs to know about one listed resource: where its rows live, who may see them,
 * how they sort and how a row becomes the message. The List and Get steps follow from it, so
 * every service lists, pages, hides and refuses the same way.
 */
export type ResourceDefinition<T extends ListedTable, M> = ResourceRows<T> & RowConversion<T, M>;

/** Where a resource's rows live and who may see them. */
export interface ResourceRows<T extends ListedTable> {
  table: T;
  /** The error domain, e.g. "iam". */
  domain: string;
  /** Named in NOT_FOUND errors, e.g. "group". */
  type: string;
  /** The capability that lets a caller see (and list) a row; unused with `admit`. */
  see: string;
  /**
   * For the installation's rows, which lie in no group (garbage collections): a check that
   * lets the caller see every row or throws, instead of grants. Such rows are not counted per
   * parent, and their uids need not be uidps.
   */
  admit?: (call: Call) => void | Promise<void>;
  /**
   * Where a caller must hold `see` (and an operation's capability) to reach one row: at its
   * parent (default), or at the row itself when the row is, or is keyed by, a group.
   */
  grantsAt?: "parent" | "row";
  /** Sortable fields by their order_by name. */
  sortFields: Readonly<Record<string, SortField>>;
  /** The order_by of a List that gives none (default "uid"), e.g. "created_at desc". */
  defaultOrder?: string;
  /**
   * Parents whose children every caller sees in a List, whatever their grants (e.g. "" for
   * the built-in roles).
   */
  listedUnder?: readonly string[];
}

/**
 * How rows become messages: one by one, or together when the messages need more reads (the
 * names a role binding shows), so a page costs one extra query rather than one per row.
 */
export type RowConversion<T extends ListedTable, M> =
  | { toMessage(row: Row<T>): M; hydrate?: never }
  | { hydrate(db: Kysely<MetadataSchema>, rows: Row<T>[]): Promise<M[]>; toMessage?: never };

/** What reading one row needs: the metadata store. */
export interface RowContext {
  db: Kysely<MetadataSchema>;
}

/** What a List needs: the metadata store and the list engine. */
export interface ResourceContext extends RowContext {
  lists: ListEngine;
}

/** One List page as messages, in the fields every List response carries. */
export interface ResourcePage<M> {
  items: M[];
  nextPageToken: string;
  totalCount: bigint;
  /** How many rows `skip` passed over. */
  skipped: number;
}

/** Which row a Get-like step reads, and what the caller must hold beyond seeing it. */
export interface RowRequest {
  /** The request field the uid came from, named in a violation (default "uid"). */
  field?: string;
  /** The capability the operation needs, if it changes anything. */
  act?: string;
}

/** The List and Get steps of one resource. */
export interface Resource<T extends ListedTable, M> {
  /** One page of the rows the caller may see; `filters` are exact matches by column. */
  list(
    ctx: ResourceContext,
    call: Call,
    parameters: ListParameters,
    filters?: Readonly<Record<string, string>>,
  ): Promise<ResourcePage<M>>;
  /** The row the caller may see (and act on); NOT_FOUND when missing or hidden. */
  load(ctx: RowContext, call: Call, uid: string, at?: RowRequest): Promise<Row<T>>;
  /** Like load, but undefined when the row is missing. */
  find(ctx: RowContext, call: Call, uid: string, at?: RowRequest): Promise<Row<T> | undefined>;
  /** The message of the row the caller may see: the whole of a Get. */
  get(ctx: RowContext, call: Call, uid: string): Promise<M>;
}

/** Turns a resource definition into its List and Get steps. */
export function defineResource<T extends ListedTable, M>(
  definition: ResourceDefinition<T, M>,
): Resource<T, M> {
  const { table, domain, type, see } = definition;
  const defaultOrder = definition.defaultOrder ?? "uid";
  const listSpec: ListSpec<T> = {
    table,
    domain,
    fields: definition.sortFields,
    defaultField: defaultOrder.split(" ")[0],
  };
  const messagesOf = async (ctx: RowContext, rows: Row<T>[]): Promise<M[]> =>
    definition.hydrate ? definition.hydrate(ctx.db, rows) : rows.map(definition.toMessage);
  const rowOptions = (uid: string, at: RowRequest = {}) => ({
    table,
    uid,
    field: at.field ?? "uid",
    see,
    act: at.act,
    resourceType: type,
    domain,
    grantsAt: definition.grantsAt,
  });
  const { admit } = definition;
  // The installation's rows: the caller sees all of them or none.
  const admitted = async (ctx: RowContext, call: Call, uid: string, field: string) => {
    await admit?.(call);
    if (uid === "") throw invalidArgument(domain, [{ field, description: "is required" }]);
    // biome-ignore lint/suspicious/noExplicitAny: the table is chosen by the definition
    const row = await (ctx.db as Kysely<any>)
      .selectFrom(table as string)
      .selectAll()
      .where("uid", "=", uid)
      .executeTakeFirst();
    return row as Row<T> | undefined;
  };
  const find = (ctx: RowContext, call: Call, uid: string, at?: RowRequest) =>
    admit
      ? admitted(ctx, call, uid, at?.field ?? "uid")
      : findVisibleRow(ctx.db, call, rowOptions(uid, at));
  const load = async (ctx: RowContext, call: Call, uid: string, at?: RowRequest) => {
    if (!admit) return loadVisibleRow(ctx.db, call, rowOptions(uid, at));
    const row = await find(ctx, call, uid, at);
    if (!row) throw notFound(domain, type, uid);
    return row;
  };
  return {
    async list(ctx, call, parameters, filters = {}) {
      if (admit) await admit(call);
      const page = await ctx.lists.list(listSpec, {
        parameters: {
          ...parameters,
          orderBy: parameters.orderBy.trim() === "" ? defaultOrder : parameters.orderBy,
        },
        filters,
        visible: admit
          ? { scopes: [], all: true }
          : {
              scopes: await scopesOf(call, see),
              ...(definition.listedUnder ? { childrenOf: definition.listedUnder } : {}),
            },
        caller: call.principal?.identityUid ?? "",
      });
      return {
        items: await messagesOf(ctx, page.rows),
        nextPageToken: page.nextPageToken,
        totalCount: page.totalCount,
        skipped: page.skipped,
      };
    },
    load,
    find,
    async get(ctx, call, uid) {
      const [message] = await messagesOf(ctx, [await load(ctx, call, uid)]);
      return message;
    },
  };
}
