import type { DescMethod, JsonObject } from "@bufbuild/protobuf";
import { capabilities, capabilityToEnum } from "../../src/auth/index.ts";
import { CapabilitySchema } from "../../src/gen/lading/iam/v2/capabilities_pb.js";
import { ExternalGroupRoleMappingsService } from "../../src/gen/lading/iam/v2/external_group_role_mappings_pb.js";
import { IdentityProvidersService } from "../../src/gen/lading/iam/v2/identity_providers_pb.js";
import { builtIn, providerBody } from "./federation-api.ts";
import { addIdentity, addRole, bind } from "./iam-fixtures.ts";
import type { Loose } from "./matrix.ts";
import type { TestServer } from "./server.ts";

/**
 * Where a scenario runs: a fresh group of the organisation on which the attacker holds exactly
 * the RPC's annotated capabilities (through its own custom role) and nothing else.
 */
export interface Stage {
  server: TestServer;
  group: string;
  attacker: { uid: string; role: string };
  /** The attacker's capabilities (dotted): the RPC's annotated ones. */
  held: string[];
  /** Calls `method` as the organisation owner; throws unless it succeeds. */
  asOwner(method: DescMethod, request: JsonObject): Promise<Loose>;
}

/**
 * The requests of one scenario, all sent by the attacker to the RPC under test. Each of
 * `escalations` tries to grant what the attacker lacks and must be refused (PERMISSION_DENIED,
 * naming the missing capabilities) without changing anything; `control` grants only what the
 * attacker holds and must succeed, which shows the annotated capabilities suffice for the call.
 */
export interface Attempts {
  escalations: JsonObject[];
  control: JsonObject;
}

/** Builds a scenario's requests on its stage. */
export type Scenario = (stage: Stage) => Promise<Attempts>;

/** The proto3 JSON names of dotted capabilities. */
export function capabilityNames(dotted: readonly string[]): string[] {
  return dotted.map((c) => {
    const value = CapabilitySchema.values.find((v) => v.number === capabilityToEnum(c));
    if (!value) throw new Error(`unknown capability ${c}`);
    return value.name;
  });
}

/** Every capability: what the owner role holds, and what no attacker does. */
export const allCapabilities = capabilityNames(capabilities);

/** A custom role on the stage's group holding exactly what the attacker holds. */
const attackersOwn = (s: Stage) => addRole(s.server, s.group, s.held);

/** A custom role on the stage's group holding every capability. */
const everything = (s: Stage) => addRole(s.server, s.group, [...capabilities]);

/** An identity provider on the stage's group whose default role the attacker may grant. */
async function provider(s: Stage, name: string): Promise<string> {
  const created = await s.asOwner(IdentityProvidersService.method.createIdentityProvider, {
    parent: s.group,
    identityProvider: providerBody({ name, defaultRole: await attackersOwn(s) }),
  });
  return created.uid as string;
}

/**
 * One scenario per RPC annotated `grants: true`, by the method's full name. The walking test
 * fails for a granting RPC without an entry here.
 */
export const grantScenarios: Record<string, Scenario> = {
  "lading.iam.v2.RolesService.CreateRole": async (s) => ({
    escalations: [{ parent: s.group, role: { name: "all", capabilities: allCapabilities } }],
    control: { parent: s.group, role: { name: "mine", capabilities: capabilityNames(s.held) } },
  }),

  "lading.iam.v2.RolesService.UpdateRole": async (s) => {
    const other = await addRole(s.server, s.group, ["roles.list"]);
    const grow = (uid: string, dotted: string[]) => ({
      role: { uid, capabilities: capabilityNames(dotted) },
      updateMask: "capabilities",
    });
    return {
      escalations: [
        {
          role: { uid: s.attacker.role, capabilities: allCapabilities },
          updateMask: "capabilities",
        },
        grow(other, ["roles.list", "role_bindings.create"]),
      ],
      control: grow(other, ["roles.list", "roles.update"]),
    };
  },

  "lading.iam.v2.RoleBindingsService.CreateRoleBinding": async (s) => {
    const target = await addIdentity(s.server, s.group);
    const binding = (identityUid: string, roleUid: string) => ({
      parent: s.group,
      roleBinding: { identityUid, roleUid },
    });
    return {
      escalations: [
        binding(s.attacker.uid, builtIn.owner),
        binding(target.uid, await everything(s)),
      ],
      control: binding(target.uid, await attackersOwn(s)),
    };
  },

  "lading.iam.v2.RoleBindingsService.UpdateRoleBinding": async (s) => {
    const target = await addIdentity(s.server, s.group);
    const admin = await addIdentity(s.server, s.group);
    const small = await bind(
      s.server,
      target.uid,
      s.group,
      await addRole(s.server, s.group, ["roles.list"]),
    );
    const owners = await bind(s.server, admin.uid, s.group, builtIn.owner);
    const escalations: JsonObject[] = [
      { roleBinding: { uid: small, roleUid: builtIn.owner }, updateMask: "roleUid" },
      { roleBinding: { uid: owners, identityUid: s.attacker.uid }, updateMask: "identityUid" },
    ];
    return {
      escalations,
      control: {
        roleBinding: { uid: small, roleUid: await attackersOwn(s) },
        updateMask: "roleUid",
      },
    };
  },

  "lading.iam.v2.GroupInvitesService.CreateGroupInvite": async (s) => ({
    escalations: [{ parent: s.group, groupInvite: { roleUid: builtIn.owner, ttl: "3600s" } }],
    control: { parent: s.group, groupInvite: { roleUid: await attackersOwn(s), ttl: "3600s" } },
  }),

  "lading.iam.v2.ExternalGroupRoleMappingsService.CreateExternalGroupRoleMapping": async (s) => {
    const parent = await provider(s, "mapped");
    const mapping = (roleUid: string) => ({
      parent,
      externalGroupRoleMapping: { externalGroupId: "admins", roleUid },
    });
    return {
      escalations: [mapping(builtIn.owner), mapping(await everything(s))],
      control: mapping(await attackersOwn(s)),
    };
  },

  "lading.iam.v2.IdentityProvidersService.CreateIdentityProvider": async (s) => ({
    escalations: [
      { parent: s.group, identityProvider: providerBody({ defaultRole: builtIn.owner }) },
    ],
    control: {
      parent: s.group,
      identityProvider: providerBody({ defaultRole: await attackersOwn(s) }),
    },
  }),

  "lading.iam.v2.IdentityProvidersService.UpdateIdentityProvider": async (s) => {
    const plain = await provider(s, "plain");
    const mapped = await provider(s, "mapped");
    await s.asOwner(ExternalGroupRoleMappingsService.method.createExternalGroupRoleMapping, {
      parent: mapped,
      externalGroupRoleMapping: { externalGroupId: "admins", roleUid: builtIn.owner },
    });
    const retarget = (uid: string) => ({
      identityProvider: { uid, oidc: { issuer: "https://attacker.example.com" } },
      updateMask: "oidc.issuer",
    });
    return {
      escalations: [
        { identityProvider: { uid: plain, defaultRole: builtIn.owner }, updateMask: "defaultRole" },
        retarget(mapped),
      ],
      control: retarget(plain),
    };
  },

  "lading.iam.v2.IdentitiesService.UpdateIdentity": async (s) => {
    const admin = await addIdentity(s.server, s.group);
    await bind(s.server, admin.uid, s.group, builtIn.owner);
    const bot = await addIdentity(s.server, s.group);
    await bind(s.server, bot.uid, s.group, await attackersOwn(s));
    const takeOver = (uid: string) => ({
      identity: { uid, claimMatch: { issuer: "https://attacker.example.com", subject: "me" } },
      updateMask: "claimMatch",
    });
    return { escalations: [takeOver(admin.uid)], control: takeOver(bot.uid) };
  },
};
