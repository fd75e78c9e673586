import type { Kysely } from "kysely";
import { invalidArgument, notFound } from "../errors/index.ts";
import type { ListedTable } from "../lists/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { parentOf } from "../uidp/index.ts";
import { requireAccess } from "./access.ts";
import type { Call } from "./call.ts";
import { Violations } from "./validate.ts";

/** Which row to load, and what the caller must hold to see it or act on it. */
export interface VisibleRowOptions<T extends ListedTable> {
  table: T;
  uid: string;
  /** The request field the uid came from, named in a violation. */
  field: string;
  /** Capability to see the row. */
  see: string;
  /** Capability the operation needs, if it changes anything. */
  act?: string;
  /** Named in NOT_FOUND errors. */
  resourceType: string;
  /** The error domain, e.g. "iam". */
  domain: string;
  /**
   * Where the capabilities must hold: at the row's parent (default), or at the row itself for
   * a group and for what is keyed by a group's uid (its account association).
   */
  grantsAt?: "parent" | "row";
}

/**
 * Loads a row the caller may see (and, with `act`, act on). Capabilities hold at the row's
 * parent: a group itself, or what anything else was created under (a tag: its repo, which
 * lies in the repo's group). Undefined when missing.
 */
export async function findVisibleRow<T extends ListedTable>(
  db: Kysely<MetadataSchema>,
  call: Call,
  options: VisibleRowOptions<T>,
): Promise<MetadataSchema[T] | undefined> {
  const { table, uid, field, see, act, resourceType, domain, grantsAt } = options;
  const v = new Violations().uid(field, uid);
  if (!v.empty) throw invalidArgument(domain, v.list);
  const at = grantsAt === "row" ? uid : parentOf(uid) || uid;
  await requireAccess(call, { see, act, at, domain, resourceType, resourceName: uid });
  // biome-ignore lint/suspicious/noExplicitAny: the table is chosen by the caller
  const row = await (db as Kysely<any>)
    .selectFrom(table as string)
    .selectAll()
    .where("uid", "=", uid)
    .executeTakeFirst();
  return row as MetadataSchema[T] | undefined;
}

/** Like findVisibleRow, but a missing row is NOT_FOUND. */
export async function loadVisibleRow<T extends ListedTable>(
  db: Kysely<MetadataSchema>,
  call: Call,
  options: VisibleRowOptions<T>,
): Promise<MetadataSchema[T]> {
  const row = await findVisibleRow(db, call, options);
  if (!row) throw notFound(options.domain, options.resourceType, options.uid);
  return row;
}

/** Requires that group `parent` exists, the caller sees it and holds `act` there. */
export async function requireParentGroup(
  db: Kysely<MetadataSchema>,
  call: Call,
  parent: string,
  act: string,
  domain: string,
): Promise<void> {
  await loadVisibleRow(db, call, {
    table: "groups",
    grantsAt: "row",
    uid: parent,
    field: "parent",
    see: "groups.list",
    act,
    resourceType: "group",
    domain,
  });
}
