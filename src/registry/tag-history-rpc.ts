import { create } from "@bufbuild/protobuf";
import { invalidArgument } from "../errors/index.ts";
import {
  type ListTagHistoryRequest,
  type ListTagHistoryResponse,
  ListTagHistoryResponseSchema,
  TagHistoryRecordSchema,
} from "../gen/lading/registry/v1/registry_pb.js";
import { type Call, Violations } from "../rpc/index.ts";
import { type RegistryContext, registryDomain } from "./registry-context.ts";
import { readHistory } from "./tag-history.ts";
import { tagResource } from "./tags-service.ts";

/** An ISO 8601 timestamp with a date, a time and a zone, as the registry's history endpoint takes. */
const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

/** Parses an optional timestamp bound to the API's form; `error` names why it is refused. */
export function parseHistoryBound(value: string): { value?: string; error?: string } {
  if (value === "") return {};
  const time = timestamp.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    return { error: "must be an ISO 8601 timestamp such as 2026-01-01T00:00:00Z" };
  }
  return { value: new Date(time).toISOString() };
}

/**
 * ListTagHistory (v1, the API twin of the registry's tag history endpoint): the tag is loaded
 * like GetTag (NOT_FOUND when the caller may not see it), then its history is read exactly as
 * the registry serves it: oldest first, at most 1000 records, both bounds inclusive.
 */
export async function listTagHistory(
  ctx: RegistryContext,
  req: ListTagHistoryRequest,
  call: Call,
): Promise<ListTagHistoryResponse> {
  const v = new Violations().uid("parent_id", req.parentId);
  const start = parseHistoryBound(req.start);
  const end = parseHistoryBound(req.end);
  if (start.error) v.add("start", start.error);
  if (end.error) v.add("end", end.error);
  if (start.value && end.value && start.value > end.value) v.add("end", "must not be before start");
  if (!v.empty) throw invalidArgument(registryDomain, v.list);
  const tag = await tagResource.load(ctx, call, req.parentId, { field: "parent_id" });
  const records = await readHistory(ctx.db, tag.parent_uid, tag.name, {
    start: start.value,
    end: end.value,
  });
  return create(ListTagHistoryResponseSchema, {
    items: records.map((r) => create(TagHistoryRecordSchema, r)),
  });
}
