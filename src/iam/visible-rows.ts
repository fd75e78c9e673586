import type { ListedTable } from "../lists/index.ts";
import {
  type Call,
  loadVisibleRow,
  requireParentGroup as requireParentGroupIn,
  type VisibleRowOptions,
} from "../rpc/index.ts";
import type { MetadataSchema } from "../store/metadata/index.ts";
import { type IamContext, iamDomain } from "./iam-context.ts";

/** What to load: the shared options, in the IAM error domain. */
export type IamRowOptions<T extends ListedTable> = Omit<VisibleRowOptions<T>, "domain">;

/** loadVisibleRow in the IAM domain: a missing row is NOT_FOUND. */
export function loadVisible<T extends ListedTable>(
  ctx: IamContext,
  call: Call,
  options: IamRowOptions<T>,
): Promise<MetadataSchema[T]> {
  return loadVisibleRow(ctx.db, call, { ...options, domain: iamDomain });
}

/** Requires that group `parent` exists, the caller sees it and holds `act` there. */
export function requireParentGroup(
  ctx: IamContext,
  call: Call,
  parent: string,
  act: string,
): Promise<void> {
  return requireParentGroupIn(ctx.db, call, parent, act, iamDomain);
}
