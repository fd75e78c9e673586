import { readFile } from "node:fs/promises";
import { text } from "node:stream/consumers";
import type { Json } from "../api-client.ts";
import { UsageError } from "../cli-context.ts";
import { type FlagSpec, flagList, flagText, type ParsedArgs } from "../command-spec.ts";
import {
  namedColumn,
  resolveAccountAssociation,
  resolveGroup,
  resolveIdentityProvider,
  resolveRole,
} from "../names.ts";
import { field } from "../output.ts";
import { type Change, groupFlag, type ResourceDef, setIfGiven } from "./crud.ts";
import { claimsOf } from "./identities.ts";

async function clientSecret(p: ParsedArgs): Promise<string | undefined> {
  const file = flagText(p, "client-secret-file");
  if (file && p.flags["client-secret-stdin"]) {
    throw new UsageError("give --client-secret-file or --client-secret-stdin, not both");
  }
  if (file) return (await readFile(file, "utf8")).trim();
  if (p.flags["client-secret-stdin"]) return (await text(process.stdin)).trim();
  return undefined;
}

const idpFlags: FlagSpec[] = [
  { name: "description", value: "TEXT", help: "a description" },
  { name: "issuer", value: "URL", help: "the OIDC issuer" },
  { name: "client-id", value: "ID", help: "the OAuth client id" },
  { name: "client-secret-file", value: "FILE", help: "read the client secret from FILE" },
  { name: "client-secret-stdin", type: "boolean", help: "read the client secret from stdin" },
  { name: "scope", value: "SCOPE", multiple: true, help: "an additional scope (besides openid)" },
  { name: "groups-claim", value: "CLAIM", help: "the claim that lists the user's groups" },
  {
    name: "default-role",
    value: "ROLE",
    help: "role (uid or name) a first sign-in gets on the group",
  },
];

/** `lading iam identity-providers`. */
export const identityProviders: ResourceDef = {
  name: "identity-providers",
  summary: "OIDC identity providers for browser sign-in",
  collection: "/iam/v2/identityProviders",
  listKey: "identityProviders",
  resolve: resolveIdentityProvider,
  argName: "PROVIDER",
  names: [{ field: "defaultRole", collection: "/iam/v2/roles" }],
  columns: [
    field("uid", "uid"),
    field("name", "name"),
    field("issuer", "oidc.issuer"),
    field("client id", "oidc.clientId"),
    namedColumn("default role", "defaultRole"),
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
      { name: "name", value: "NAME", help: "the provider's name", required: true },
      ...idpFlags.map((f) =>
        ["issuer", "client-id", "default-role"].includes(f.name) ? { ...f, required: true } : f,
      ),
      { name: "pkce", type: "boolean", help: "use PKCE (S256) with the provider" },
    ],
    examples: [
      "lading iam identity-providers create --parent $ORG --name google --issuer https://accounts.google.com --client-id ID --client-secret-file secret.txt --default-role viewer --pkce",
    ],
    async build(p, api) {
      const body: Json = {
        name: flagText(p, "name"),
        description: flagText(p, "description") ?? "",
        defaultRole: await resolveRole(api, flagText(p, "default-role") ?? ""),
        oidc: {
          issuer: flagText(p, "issuer"),
          clientId: flagText(p, "client-id"),
          clientSecret: (await clientSecret(p)) ?? "",
          additionalScopes: flagList(p, "scope"),
          groupsClaim: flagText(p, "groups-claim") ?? "",
          pkceEnabled: p.flags.pkce === true,
        },
      };
      return { parent: await resolveGroup(api, flagText(p, "parent") ?? ""), body };
    },
  },
  update: {
    flags: [
      { name: "name", value: "NAME", help: "a new name" },
      ...idpFlags,
      { name: "pkce", type: "boolean", help: "turn PKCE on" },
      { name: "no-pkce", type: "boolean", help: "turn PKCE off" },
    ],
    async build(p, api) {
      const change: Required<Change> = { body: {}, mask: [] };
      setIfGiven(change, "name", flagText(p, "name"));
      setIfGiven(change, "description", flagText(p, "description"));
      const role = flagText(p, "default-role");
      setIfGiven(change, "defaultRole", role ? await resolveRole(api, role) : undefined);
      setIfGiven(change, "oidc.issuer", flagText(p, "issuer"));
      setIfGiven(change, "oidc.clientId", flagText(p, "client-id"));
      setIfGiven(change, "oidc.clientSecret", await clientSecret(p));
      const scopes = flagList(p, "scope");
      setIfGiven(change, "oidc.additionalScopes", scopes.length ? scopes : undefined);
      setIfGiven(change, "oidc.groupsClaim", flagText(p, "groups-claim"));
      const pkce = p.flags.pkce ? true : p.flags["no-pkce"] ? false : undefined;
      return setIfGiven(change, "oidc.pkceEnabled", pkce);
    },
  },
};

/** `lading iam group-mappings` (ExternalGroupRoleMappings). */
export const groupMappings: ResourceDef = {
  name: "group-mappings",
  summary: "External group → role mappings of an identity provider (no update)",
  collection: "/iam/v2/externalGroupRoleMappings",
  listKey: "externalGroupRoleMappings",
  names: [
    { field: "roleUid", collection: "/iam/v2/roles" },
    { field: "scope", collection: "/iam/v2/groups" },
  ],
  columns: [
    field("uid", "uid"),
    field("external group", "externalGroupId"),
    namedColumn("role", "roleUid"),
    namedColumn("scope", "scope"),
    field("created", "createTime"),
  ],
  standardFilters: false,
  listFilters: [
    {
      name: "identity-provider",
      value: "PROVIDER",
      help: "only mappings of this provider (uid or name)",
    },
    { name: "under", value: "GROUP", help: "only mappings anywhere below this group" },
  ],
  listQuery: async (p, api) => {
    const provider = flagText(p, "identity-provider");
    return {
      identity_provider_uid: provider ? await resolveIdentityProvider(api, provider) : undefined,
    };
  },
  create: {
    flags: [
      {
        name: "identity-provider",
        value: "PROVIDER",
        help: "the provider (uid or name)",
        required: true,
      },
      { name: "external-group", value: "ID", help: "a value of the groups claim", required: true },
      { name: "role", value: "ROLE", help: "role uid or name", required: true },
      {
        name: "scope",
        value: "GROUP",
        help: "the group (uid or name) the role applies to (default: the provider's)",
      },
    ],
    examples: [
      "lading iam group-mappings create --identity-provider $IDP --external-group admins --role owner",
    ],
    async build(p, api) {
      return {
        parent: await resolveIdentityProvider(api, flagText(p, "identity-provider") ?? ""),
        body: {
          externalGroupId: flagText(p, "external-group"),
          roleUid: await resolveRole(api, flagText(p, "role") ?? ""),
          scope: (await groupFlag(api, p, "scope")) ?? "",
        },
      };
    },
  },
};

const associationFlags: FlagSpec[] = [
  { name: "name", value: "NAME", help: "a name" },
  { name: "description", value: "TEXT", help: "a description" },
  { name: "amazon-account", value: "ID", help: "AWS account id (12 digits)" },
  { name: "google-project-id", value: "ID", help: "Google Cloud project id" },
  { name: "google-project-number", value: "N", help: "Google Cloud project number" },
  { name: "azure-tenant-id", value: "UUID", help: "Azure tenant id" },
  { name: "azure-client-id", value: "NAME=UUID", multiple: true, help: "an Azure client id" },
];

function associationChange(p: ParsedArgs): Required<Change> {
  const change: Required<Change> = { body: {}, mask: [] };
  setIfGiven(change, "name", flagText(p, "name"));
  setIfGiven(change, "description", flagText(p, "description"));
  setIfGiven(change, "amazon.account", flagText(p, "amazon-account"));
  setIfGiven(change, "google.projectId", flagText(p, "google-project-id"));
  setIfGiven(change, "google.projectNumber", flagText(p, "google-project-number"));
  setIfGiven(change, "azure.tenantId", flagText(p, "azure-tenant-id"));
  return setIfGiven(change, "azure.clientIds", claimsOf(flagList(p, "azure-client-id")));
}

/** `lading iam account-associations`. */
export const accountAssociations: ResourceDef = {
  name: "account-associations",
  summary: "Cloud accounts associated with a group (one per group)",
  collection: "/iam/v2/accountAssociations",
  listKey: "accountAssociations",
  resolve: resolveAccountAssociation,
  argName: "ASSOCIATION",
  columns: [
    field("uid", "uid"),
    field("name", "name"),
    field("amazon", "amazon.account"),
    field("google", "google.projectId"),
    field("azure", "azure.tenantId"),
    field("created", "createTime"),
  ],
  create: {
    flags: [
      {
        name: "parent",
        value: "GROUP",
        help: "the group (uid or name) to associate",
        required: true,
      },
      ...associationFlags,
    ],
    examples: [
      "lading iam account-associations create --parent $ORG --name prod --amazon-account 123456789012",
    ],
    async build(p, api) {
      const parent = await resolveGroup(api, flagText(p, "parent") ?? "");
      return { parent, body: associationChange(p).body };
    },
  },
  update: { flags: associationFlags, build: async (p) => associationChange(p) },
};
