import { type ApiClient, CliError, type Json } from "../api-client.ts";
import { type Column, field } from "../output.ts";

/** Whether `text` is a uid (40 hex, or a child uid with slashes) rather than a name. */
export function looksLikeUid(text: string): boolean {
  return /^[0-9a-f]{40}(\/[0-9a-f]{16})*$/.test(text);
}

/**
 * The uid of role `text`: a uid as is, else the role with that name (GET /iam/v2/roles?name=);
 * a built-in (root-level) role wins over custom roles of the same name.
 */
export async function resolveRole(api: ApiClient, text: string): Promise<string> {
  if (looksLikeUid(text)) return text;
  const answer = await api.get("/iam/v2/roles", { name: text, page_size: 200 });
  const roles = (answer.roles as Json[] | undefined) ?? [];
  const builtIn = roles.find((r) => !String(r.uid).includes("/"));
  if (builtIn) return String(builtIn.uid);
  if (roles.length === 1) return String(roles[0].uid);
  if (roles.length === 0) throw new CliError([`lading: no role named "${text}"`]);
  throw new CliError([
    `lading: several roles are named "${text}"; give a uid:`,
    ...roles.map((r) => `  ${r.uid}`),
  ]);
}

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
