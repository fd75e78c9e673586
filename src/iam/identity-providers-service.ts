import { create } from "@bufbuild/protobuf";
import { issuerProblem } from "../auth/index.ts";
import { invalidArgument } from "../errors/index.ts";
import {
  type IdentityProvider,
  IdentityProviderSchema,
  IdentityProvidersService,
  type OIDCProvider,
  OIDCProviderSchema,
} from "../gen/lading/iam/v2/identity_providers_pb.js";
import {
  type BoundService,
  bindService,
  type Call,
  defineResource,
  now,
  updatePaths,
  Violations,
} from "../rpc/index.ts";
import type { IdentityProvidersTable } from "../store/metadata/index.ts";
import { newChildUid } from "../uidp/index.ts";
import { type IamContext, iamDomain, namedSortFields } from "./iam-context.ts";
import {
  grantableRole,
  requireCanGrantAll,
  requireCapability,
  requireRoleCapabilities,
} from "./role-grant.ts";
import { requireParentGroup } from "./visible-rows.ts";

/** Identity providers as the API lists and gets them. */
export const identityProviderResource = defineResource({
  table: "identity_providers",
  domain: iamDomain,
  type: "identity provider",
  see: "identity_providers.list",
  sortFields: namedSortFields,
  toMessage: identityProviderFromRow,
});

const oidcPaths = [
  "oidc.issuer",
  "oidc.client_id",
  "oidc.client_secret",
  "oidc.additional_scopes",
  "oidc.groups_claim",
  "oidc.pkce_enabled",
] as const;

const fields = {
  updatable: ["name", "description", "default_role", ...oidcPaths],
  outputOnly: ["uid", "create_time", "update_time"],
};

/** An OAuth 2.0 scope token (RFC 6749 §3.3): printable ASCII without space, `"` or `\`. */
const SCOPE = /^[\x21\x23-\x5B\x5D-\x7E]{1,256}$/;

/** Converts a stored row to the API message. The client secret is never returned. */
export function identityProviderFromRow(row: IdentityProvidersTable): IdentityProvider {
  return create(IdentityProviderSchema, {
    uid: row.uid,
    name: row.name,
    description: row.description,
    createTime: row.create_time,
    updateTime: row.update_time,
    defaultRole: row.default_role_uid,
    oidc: {
      issuer: row.issuer,
      clientId: row.client_id,
      additionalScopes: JSON.parse(row.additional_scopes) as string[],
      groupsClaim: row.groups_claim,
      pkceEnabled: row.pkce_enabled === 1,
    },
  });
}

/** The scopes to store: each checked, `openid` (always requested) and repeats dropped. */
function scopesToStore(v: Violations, scopes: string[]): string[] {
  if (scopes.some((s) => !SCOPE.test(s))) {
    v.add("oidc.additional_scopes", "each must be a scope token: 1 to 256 characters, no spaces");
  }
  return [...new Set(scopes.filter((s) => s !== "openid"))];
}

/** Checks a row about to be stored; the default role is checked separately. */
function checkRow(
  v: Violations,
  row: IdentityProvidersTable,
  outbound: IamContext["outbound"],
): void {
  v.name("name", row.name).description("description", row.description);
  const issuer = issuerProblem(row.issuer, outbound);
  if (issuer) v.add("oidc.issuer", issuer);
  if (row.client_id === "" || row.client_id.length > 256)
    v.add("oidc.client_id", "must be 1 to 256 characters");
  if (row.client_secret.length > 1024)
    v.add("oidc.client_secret", "must be at most 1024 characters");
  else if (row.client_secret === "" && row.pkce_enabled !== 1)
    v.add("oidc.client_secret", "is required unless oidc.pkce_enabled is true");
  if (row.groups_claim.length > 256 || /\s/.test(row.groups_claim))
    v.add("oidc.groups_claim", "must be at most 256 characters without spaces");
}

/** The IdentityProvidersService implementation. */
export function createIdentityProvidersService(ctx: IamContext): BoundService {
  const { db } = ctx;

  /** Validates `row`; its default role must be grantable and within the caller's own grants. */
  async function check(call: Call, v: Violations, row: IdentityProvidersTable): Promise<void> {
    checkRow(v, row, ctx.outbound);
    const role = await grantableRole(ctx, v, "default_role", row.default_role_uid, row.parent_uid);
    if (!v.empty || !role) throw invalidArgument(iamDomain, v.list);
    await requireRoleCapabilities(call, role, row.parent_uid);
  }

  return bindService(IdentityProvidersService, {
    async listIdentityProviders(req, call) {
      const page = await identityProviderResource.list(ctx, call, req, { name: req.name });
      return { ...page, identityProviders: page.items };
    },

    async getIdentityProvider(req, call) {
      return identityProviderResource.get(ctx, call, req.uid);
    },

    async createIdentityProvider(req, call) {
      const input = req.identityProvider ?? create(IdentityProviderSchema);
      const oidc = input.oidc ?? create(OIDCProviderSchema);
      const v = new Violations().uid("parent", req.parent);
      if (!v.empty) throw invalidArgument(iamDomain, v.list);
      await requireParentGroup(ctx, call, req.parent, "identity_providers.create");
      await requireCapability(call, "role_bindings.create", req.parent);
      const time = now();
      const row: IdentityProvidersTable = {
        uid: newChildUid(req.parent),
        parent_uid: req.parent,
        name: input.name,
        description: input.description,
        issuer: oidc.issuer,
        client_id: oidc.clientId,
        client_secret: oidc.clientSecret ?? "",
        additional_scopes: JSON.stringify(scopesToStore(v, oidc.additionalScopes)),
        groups_claim: oidc.groupsClaim,
        default_role_uid: input.defaultRole,
        pkce_enabled: oidc.pkceEnabled ? 1 : 0,
        create_time: time,
        update_time: time,
      };
      await check(call, v, row);
      await db.insertInto("identity_providers").values(row).execute();
      return identityProviderFromRow(row);
    },

    async updateIdentityProvider(req, call) {
      const input = req.identityProvider ?? create(IdentityProviderSchema);
      const row = await identityProviderResource.load(ctx, call, input.uid, {
        field: "identity_provider.uid",
        act: "identity_providers.update",
      });
      await requireCapability(call, "role_bindings.create", row.parent_uid);
      const oidc: OIDCProvider = input.oidc ?? create(OIDCProviderSchema);
      const paths = updatePaths(iamDomain, req.updateMask, call, fields, () => {
        const set: string[] = [];
        if (input.name) set.push("name");
        if (input.description) set.push("description");
        if (input.defaultRole) set.push("default_role");
        if (oidc.issuer) set.push("oidc.issuer");
        if (oidc.clientId) set.push("oidc.client_id");
        if (oidc.clientSecret !== undefined) set.push("oidc.client_secret");
        if (oidc.additionalScopes.length > 0) set.push("oidc.additional_scopes");
        if (oidc.groupsClaim) set.push("oidc.groups_claim");
        if (oidc.pkceEnabled) set.push("oidc.pkce_enabled");
        return set;
      });
      const secretNamed =
        oidc.clientSecret !== undefined ||
        (req.updateMask?.paths ?? []).includes("oidc.client_secret");
      const v = new Violations();
      const pick = <T>(path: string, value: T, old: T): T => (paths.has(path) ? value : old);
      const next: IdentityProvidersTable = {
        ...row,
        name: pick("name", input.name, row.name),
        description: pick("description", input.description, row.description),
        default_role_uid: pick("default_role", input.defaultRole, row.default_role_uid),
        issuer: pick("oidc.issuer", oidc.issuer, row.issuer),
        client_id: pick("oidc.client_id", oidc.clientId, row.client_id),
        client_secret:
          paths.has("oidc.client_secret") && secretNamed
            ? (oidc.clientSecret ?? "")
            : row.client_secret,
        additional_scopes: paths.has("oidc.additional_scopes")
          ? JSON.stringify(scopesToStore(v, oidc.additionalScopes))
          : row.additional_scopes,
        groups_claim: pick("oidc.groups_claim", oidc.groupsClaim, row.groups_claim),
        pkce_enabled: pick("oidc.pkce_enabled", oidc.pkceEnabled ? 1 : 0, row.pkce_enabled),
      };
      if (paths.size === 0) return identityProviderFromRow(row);
      await check(call, v, next);
      // Whoever changes a provider must be able to grant all it grants: a new issuer, client or
      // groups claim hands the mappings' roles to other people, as it does the default role.
      const mapped = await db
        .selectFrom("external_group_role_mappings as m")
        .innerJoin("roles as r", "r.uid", "m.role_uid")
        .select(["r.capabilities", "m.scope_uid as group"])
        .where("m.parent_uid", "=", row.uid)
        .execute();
      await requireCanGrantAll(call, mapped);
      next.update_time = now();
      const { uid, ...changes } = next;
      await db.updateTable("identity_providers").set(changes).where("uid", "=", uid).execute();
      return identityProviderFromRow(next);
    },

    async deleteIdentityProvider(req, call) {
      const row = await identityProviderResource.load(ctx, call, req.uid, {
        act: "identity_providers.delete",
      });
      await db.transaction().execute(async (tx) => {
        const mappings = tx
          .selectFrom("external_group_role_mappings")
          .select("uid")
          .where("parent_uid", "=", row.uid);
        await tx.deleteFrom("role_bindings").where("mapping_uid", "in", mappings).execute();
        await tx
          .deleteFrom("external_group_role_mappings")
          .where("parent_uid", "=", row.uid)
          .execute();
        await tx.deleteFrom("identity_providers").where("uid", "=", row.uid).execute();
      });
      return {};
    },
  });
}
