import { readFile } from "node:fs/promises";
import { type ApiClient, type Json, uidPath } from "../api-client.ts";
import { UsageError } from "../cli-context.ts";
import { type FlagSpec, flagList, flagText, type ParsedArgs } from "../command-spec.ts";
import { resolveGroup, resolveIdentity } from "../names.ts";
import { field } from "../output.ts";
import { type Change, listPages, type ResourceDef, setIfGiven } from "./crud.ts";

const matchFlags: FlagSpec[] = [
  { name: "issuer", value: "URL", help: "the token issuer (iss)" },
  { name: "subject", value: "SUB", help: "the token subject (sub)" },
  { name: "issuer-pattern", value: "REGEX", help: "an RE2 pattern the issuer must match instead" },
  {
    name: "subject-pattern",
    value: "REGEX",
    help: "an RE2 pattern the subject must match instead",
  },
  { name: "audience", value: "AUD", help: "the audience (aud) the token must carry" },
  { name: "claim", value: "KEY=VALUE", multiple: true, help: "another claim the token must carry" },
];

/** `k=v` flags as a map. */
export function claimsOf(values: string[]): Record<string, string> | undefined {
  if (values.length === 0) return undefined;
  const claims: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf("=");
    if (at <= 0) throw new UsageError(`--claim must be KEY=VALUE, got "${value}"`);
    claims[value.slice(0, at)] = value.slice(at + 1);
  }
  return claims;
}

async function staticKeys(p: ParsedArgs): Promise<Json | undefined> {
  const file = flagText(p, "static-keys-file");
  if (!file) {
    if (flagText(p, "expiration")) throw new UsageError("--expiration needs --static-keys-file");
    return undefined;
  }
  if (
    flagText(p, "issuer-pattern") ||
    flagText(p, "subject-pattern") ||
    flagList(p, "claim").length
  ) {
    throw new UsageError("--static-keys-file takes --issuer, --subject and --audience only");
  }
  const audience = flagText(p, "audience");
  return {
    issuer: flagText(p, "issuer") ?? "",
    subject: flagText(p, "subject") ?? "",
    issuerKeys: await readFile(file, "utf8"),
    expirationTime: flagText(p, "expiration") ?? "",
    audiences: audience ? [audience] : [],
  };
}

function claimMatch(p: ParsedArgs): Json {
  return {
    issuer: flagText(p, "issuer") ?? "",
    subject: flagText(p, "subject") ?? "",
    issuerPattern: flagText(p, "issuer-pattern") ?? "",
    subjectPattern: flagText(p, "subject-pattern") ?? "",
    audience: flagText(p, "audience") ?? "",
    claims: claimsOf(flagList(p, "claim")) ?? {},
  };
}

/** Deletes the identity's role bindings, then the identity (bindings go first: spec rule). */
export async function deleteIdentity(api: ApiClient, uid: string): Promise<Json> {
  const { rows } = await listPages(
    api,
    "/iam/v2/roleBindings",
    "roleBindings",
    { identity: uid, page_size: 200 },
    true,
  );
  for (const binding of rows)
    await api.delete(`/iam/v2/roleBindings/${uidPath(String(binding.uid))}`);
  return api.delete(`/iam/v2/identities/${uidPath(uid)}`);
}

/** `lading iam identities`. */
export const identities: ResourceDef = {
  name: "identities",
  summary: "Identities (workloads, users and static-key identities)",
  collection: "/iam/v2/identities",
  listKey: "identities",
  resolve: resolveIdentity,
  argName: "IDENTITY",
  columns: [
    field("uid", "uid"),
    field("name", "name"),
    {
      header: "issuer",
      value: (r) => {
        const m = (r.claimMatch ?? {}) as Json;
        const s = (r.staticKeys ?? {}) as Json;
        return String(m.issuer || m.issuerPattern || s.issuer || "");
      },
    },
    {
      header: "subject",
      value: (r) => {
        const m = (r.claimMatch ?? {}) as Json;
        const s = (r.staticKeys ?? {}) as Json;
        return String(m.subject || m.subjectPattern || s.subject || r.email || "");
      },
    },
    field("last seen", "lastSeenTime"),
    field("created", "createTime"),
  ],
  create: {
    flags: [
      {
        name: "parent",
        value: "GROUP",
        help: "the group (uid or name) to create it in",
        required: true,
      },
      { name: "name", value: "NAME", help: "the identity's name", required: true },
      { name: "description", value: "TEXT", help: "a description" },
      ...matchFlags,
      { name: "static-keys-file", value: "FILE", help: "a JWKS file: a static-key identity" },
      {
        name: "expiration",
        value: "TIME",
        help: "static keys: ISO expiration (default and max +365d)",
      },
    ],
    examples: [
      "lading iam identities create --parent $ORG --name ci --issuer https://token.actions.githubusercontent.com --subject repo:acme/app:ref:refs/heads/main",
      "lading iam identities create --parent $ORG --name deploy --static-keys-file jwks.json --expiration 2027-01-01T00:00:00Z",
    ],
    async build(p, api) {
      const keys = await staticKeys(p);
      const body: Json = {
        name: flagText(p, "name"),
        description: flagText(p, "description") ?? "",
      };
      if (keys) body.staticKeys = keys;
      else body.claimMatch = claimMatch(p);
      return { parent: await resolveGroup(api, flagText(p, "parent") ?? ""), body };
    },
  },
  update: {
    flags: [
      { name: "name", value: "NAME", help: "a new name" },
      { name: "description", value: "TEXT", help: "a new description" },
      ...matchFlags,
    ],
    async build(p) {
      const change: Required<Change> = { body: {}, mask: [] };
      setIfGiven(change, "name", flagText(p, "name"));
      setIfGiven(change, "description", flagText(p, "description"));
      setIfGiven(change, "claimMatch.issuer", flagText(p, "issuer"));
      setIfGiven(change, "claimMatch.subject", flagText(p, "subject"));
      setIfGiven(change, "claimMatch.issuerPattern", flagText(p, "issuer-pattern"));
      setIfGiven(change, "claimMatch.subjectPattern", flagText(p, "subject-pattern"));
      setIfGiven(change, "claimMatch.audience", flagText(p, "audience"));
      return setIfGiven(change, "claimMatch.claims", claimsOf(flagList(p, "claim")));
    },
  },
  delete: deleteIdentity,
};
