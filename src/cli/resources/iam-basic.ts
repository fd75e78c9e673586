import type { Json } from "../api-client.ts";
import { type FlagSpec, flagList, flagText } from "../command-spec.ts";
import { resolveGroup, resolveIdentity, resolveRole } from "../names.ts";
import { field } from "../output.ts";
import { type Change, groupFlag, type ResourceDef, setIfGiven } from "./crud.ts";
import { capabilityWireName, roleBindingColumns, roleColumns } from "./roles.ts";

const nameFlags = (what: string): FlagSpec[] => [
  { name: "name", value: "NAME", help: `the ${what}'s name` },
  { name: "description", value: "TEXT", help: "a description" },
];

const parentFlag: FlagSpec = {
  name: "parent",
  value: "GROUP",
  help: "the group (uid or name, e.g. acme or acme/team-a) to create it in",
  required: true,
};

const empty = (): Required<Change> => ({ body: {}, mask: [] });

/** `lading iam groups`. */
export const groups: ResourceDef = {
  name: "groups",
  summary: "Groups (organisations and their sub-groups)",
  collection: "/iam/v2/groups",
  listKey: "groups",
  resolve: resolveGroup,
  argName: "GROUP",
  columns: [
    field("uid", "uid"),
    field("name", "name"),
    field("description", "description"),
    field("created", "createTime"),
  ],
  create: {
    flags: [parentFlag, { ...nameFlags("group")[0], required: true }, nameFlags("group")[1]],
    examples: ["lading iam groups create --parent $ORG --name team-a --description 'Team A'"],
    async build(p, api) {
      return {
        parent: await resolveGroup(api, flagText(p, "parent") ?? ""),
        body: { name: flagText(p, "name"), description: flagText(p, "description") ?? "" },
      };
    },
  },
  update: {
    flags: nameFlags("group"),
    examples: ["lading iam groups update $GROUP --description 'Team A (platform)'"],
    async build(p) {
      const change = empty();
      setIfGiven(change, "name", flagText(p, "name"));
      return setIfGiven(change, "description", flagText(p, "description"));
    },
  },
};

const capabilityFlag: FlagSpec = {
  name: "capability",
  value: "CAP",
  multiple: true,
  help: "a capability such as repo.list (update: replaces the whole set)",
};

/** `lading iam roles`. */
export const roles: ResourceDef = {
  name: "roles",
  summary: "Roles (built-in and custom capability sets)",
  collection: "/iam/v2/roles",
  listKey: "roles",
  resolve: resolveRole,
  argName: "ROLE",
  columns: roleColumns,
  create: {
    flags: [
      parentFlag,
      { ...nameFlags("role")[0], required: true },
      nameFlags("role")[1],
      capabilityFlag,
    ],
    examples: [
      "lading iam roles create --parent $ORG --name reader --capability repo.list --capability tag.list",
    ],
    async build(p, api) {
      return {
        parent: await resolveGroup(api, flagText(p, "parent") ?? ""),
        body: {
          name: flagText(p, "name"),
          description: flagText(p, "description") ?? "",
          capabilities: flagList(p, "capability").map(capabilityWireName),
        },
      };
    },
  },
  update: {
    flags: [...nameFlags("role"), capabilityFlag],
    async build(p) {
      const change = empty();
      setIfGiven(change, "name", flagText(p, "name"));
      setIfGiven(change, "description", flagText(p, "description"));
      const caps = flagList(p, "capability");
      return setIfGiven(
        change,
        "capabilities",
        caps.length ? caps.map(capabilityWireName) : undefined,
      );
    },
  },
};

/** `lading iam role-bindings`. */
export const roleBindings: ResourceDef = {
  name: "role-bindings",
  summary: "Role bindings (an identity holds a role on a group)",
  collection: "/iam/v2/roleBindings",
  listKey: "roleBindings",
  columns: roleBindingColumns,
  standardFilters: false,
  listFilters: [
    { name: "parent", value: "GROUP", help: "only bindings directly on this group's children" },
    { name: "under", value: "GROUP", help: "only bindings anywhere below this group" },
    { name: "identity", value: "IDENTITY", help: "only bindings of this identity (uid or name)" },
    { name: "role", value: "ROLE", help: "only bindings of this role (uid or name)" },
    { name: "group", value: "GROUP", help: "only bindings on exactly this group (uid or name)" },
  ],
  listQuery: async (p, api) => {
    const identity = flagText(p, "identity");
    const role = flagText(p, "role");
    return {
      identity: identity ? await resolveIdentity(api, identity) : undefined,
      role: role ? await resolveRole(api, role) : undefined,
      group: await groupFlag(api, p, "group"),
    };
  },
  create: {
    flags: [
      {
        name: "group",
        value: "GROUP",
        help: "the group (uid or name) the role applies to",
        required: true,
      },
      { name: "identity", value: "IDENTITY", help: "the identity (uid or name)", required: true },
      {
        name: "role",
        value: "ROLE",
        help: "a role uid or name (viewer, editor, owner, …)",
        required: true,
      },
    ],
    examples: ["lading iam role-bindings create --group $ORG --identity $ID --role registry.push"],
    async build(p, api) {
      const body: Json = {
        identityUid: await resolveIdentity(api, flagText(p, "identity") ?? ""),
        roleUid: await resolveRole(api, flagText(p, "role") ?? ""),
      };
      return { parent: await resolveGroup(api, flagText(p, "group") ?? ""), body };
    },
  },
  update: {
    flags: [
      { name: "identity", value: "IDENTITY", help: "another identity (uid or name)" },
      { name: "role", value: "ROLE", help: "another role (uid or name)" },
    ],
    async build(p, api) {
      const change = empty();
      const identity = flagText(p, "identity");
      setIfGiven(
        change,
        "identityUid",
        identity ? await resolveIdentity(api, identity) : undefined,
      );
      const role = flagText(p, "role");
      return setIfGiven(change, "roleUid", role ? await resolveRole(api, role) : undefined);
    },
  },
};
