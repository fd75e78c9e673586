import type { Kysely } from "kysely";
import { invalidArgument, notFound } from "../errors/index.ts";
import type { ListedTable } from "../lists/index.ts";
import { type Call, requireAccess, Violations } from "../rpc/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { parentOf } from "../uidp/index.ts";
import { type IamContext, iamDomain } from "./iam-context.ts";

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
}

/**
 * Loads a row the caller may see (and, with `act`, act on). Capabilities hold at the row's
 * group: a group itself, or the group anything else was created under. Undefined when missing.
 */
export async function findVisible<T extends ListedTable>(
  ctx: IamContext,
  call: Call,
  options: VisibleRowOptions<T>,
): Promise<MetadataSchema[T] | undefined> {
  const { table, uid, field, see, act, resourceType } = options;
  const v = new Violations().uid(field, uid);
  if (!v.empty) throw invalidArgument(iamDomain, v.list);
  const at = table === "groups" ? uid : parentOf(uid) || uid;
  await requireAccess(call, { see, act, at, domain: iamDomain, resourceType, resourceName: uid });
  // biome-ignore lint/suspicious/noExplicitAny: the table is chosen by the caller
  const db = ctx.db as Kysely<any>;
  const row = await db
    .selectFrom(table as string)
    .selectAll()
    .where("uid", "=", uid)
    .executeTakeFirst();
  return row as MetadataSchema[T] | undefined;
}

/** Like findVisible, but a missing row is NOT_FOUND. */
export async function loadVisible<T extends ListedTable>(
  ctx: IamContext,
  call: Call,
  options: VisibleRowOptions<T>,
): Promise<MetadataSchema[T]> {
  const row = await findVisible(ctx, call, options);
  if (!row) throw notFound(iamDomain, options.resourceType, options.uid);
  return row;
}

/** Requires that group `parent` exists, the caller sees it and holds `act` there. */
export async function requireParentGroup(
  ctx: IamContext,
  call: Call,
  parent: string,
  act: string,
): Promise<void> {
  await loadVisible(ctx, call, {
    table: "groups",
    uid: parent,
    field: "parent",
    see: "groups.list",
    act,
    resourceType: "group",
  });
}
