import type { Json } from "../api-client.ts";
import { type Column, field } from "../output.ts";

/** "repo.list" or "CAP_REPO_LIST" → "CAP_REPO_LIST". */
export function capabilityWireName(text: string): string {
  return text.startsWith("CAP_") ? text : `CAP_${text.replace(/\./g, "_").toUpperCase()}`;
}

/** Role columns. */
export const roleColumns: Column[] = [
  field("uid", "uid"),
  field("name", "name"),
  {
    header: "capabilities",
    value: (row) => String(((row.capabilities as unknown[] | undefined) ?? []).length),
  },
  field("description", "description"),
  field("created", "createTime"),
];

/** Role binding columns (names from the hydrated identity, role and group). */
export const roleBindingColumns: Column[] = [
  field("uid", "uid"),
  { header: "identity", value: (r) => nameOrUid(r.identity) },
  { header: "role", value: (r) => nameOrUid(r.role) },
  { header: "group", value: (r) => nameOrUid(r.group) },
  field("created", "createTime"),
];

function nameOrUid(value: unknown): string {
  const v = (value ?? {}) as Json;
  return String(v.name || v.uid || "");
}
