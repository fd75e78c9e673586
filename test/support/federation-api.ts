import type { DescService, JsonObject } from "@bufbuild/protobuf";
import { AccountAssociationsService } from "../../src/gen/lading/iam/v2/account_associations_pb.js";
import { ExternalGroupRoleMappingsService } from "../../src/gen/lading/iam/v2/external_group_role_mappings_pb.js";
import { IdentityProvidersService } from "../../src/gen/lading/iam/v2/identity_providers_pb.js";
import { type Api, grpcCaller, listRequest, restApi } from "./api-client.ts";
import { type Harness, type Loose, ok } from "./matrix.ts";

/** The federation collections, by their REST path segment. */
export type FederationKind =
  | "identityProviders"
  | "externalGroupRoleMappings"
  | "accountAssociations";

/** The same federation API calls over REST or gRPC, answering in proto3 JSON either way. */
export type FederationApi = Omit<Api<FederationKind>, "transport">;

const services = {
  identityProviders: {
    service: IdentityProvidersService,
    one: "IdentityProvider",
    many: "IdentityProviders",
    field: "identityProvider",
  },
  externalGroupRoleMappings: {
    service: ExternalGroupRoleMappingsService,
    one: "ExternalGroupRoleMapping",
    many: "ExternalGroupRoleMappings",
    field: "externalGroupRoleMapping",
  },
  accountAssociations: {
    service: AccountAssociationsService,
    one: "AccountAssociation",
    many: "AccountAssociations",
    field: "accountAssociation",
  },
} as const;

/** The federation API over `transport` with `token`. */
export function federationApi(
  transport: "rest" | "grpc",
  baseUrl: string,
  token: string | undefined,
): FederationApi {
  if (transport === "rest") return restApi<FederationKind>(baseUrl, token);
  const grpc = grpcCaller(baseUrl, token);
  const call = (kind: FederationKind, verb: string, request: JsonObject) => {
    const { service, one, many } = services[kind];
    return grpc(service as DescService, `${verb}${verb === "list" ? many : one}`, request);
  };
  return {
    list: (kind, params = {}) => call(kind, "list", listRequest(params)),
    get: (kind, uid) => call(kind, "get", { uid }),
    create: (kind, parent, body) => call(kind, "create", { parent, [services[kind].field]: body }),
    update: (kind, uid, body, mask) =>
      call(kind, "update", {
        [services[kind].field]: { ...body, uid },
        ...(mask === undefined ? {} : { updateMask: mask }),
      }),
    delete: (kind, uid) => call(kind, "delete", { uid }),
  };
}

/** An identity of the harness's organisation (or under `parent`) with a token, and its APIs. */
export interface Actor {
  uid: string;
  token: string;
  fed: FederationApi;
}

/** Built-in role uids. */
export const builtIn = {
  owner: "00d3b8b625086cbac9f72bacfda17437428058e4",
  editor: "a3eea068ac8917a4e8557fce595ddda2d6391edc",
  viewer: "63921b2c44617e3f2603851537be0123af4a57d7",
};

/** Creates identity `name` under `parent`, bound to each of `roles` on `bindOn` (default parent). */
export async function actor(
  h: Harness,
  name: string,
  parent: string,
  roles: string[],
  bindOn?: string,
): Promise<Actor> {
  const identity = ok(await h.api.create("identities", parent, { name }));
  const uid = identity.uid as string;
  for (const roleUid of roles) {
    ok(await h.api.create("roleBindings", bindOn ?? parent, { identityUid: uid, roleUid }));
  }
  const token = await h.server.token(uid);
  return { uid, token, fed: federationApi(h.transport, h.server.apiUrl, token) };
}

/** A custom role on `group` holding `capabilities` (CAP_ names). */
export async function customRole(
  h: Harness,
  group: string,
  name: string,
  capabilities: string[],
): Promise<string> {
  return ok(await h.api.create("roles", group, { name, capabilities })).uid as string;
}

/** The owner of a second organisation `name`, on the same server. */
export async function rivalOwner(h: Harness, name: string): Promise<Actor & { groupUid: string }> {
  const { bootstrapOrganisation } = await import("../../src/app/index.ts");
  const rival = await bootstrapOrganisation(h.server.lading.store.db, name);
  const token = await h.server.token(rival.identityUid);
  return {
    uid: rival.identityUid,
    groupUid: rival.groupUid,
    token,
    fed: federationApi(h.transport, h.server.apiUrl, token),
  };
}

/** An identity provider body (default role viewer, secret "s3cret") with overrides. */
export function providerBody(extra: Loose = {}, oidc: Loose = {}): Loose {
  return {
    name: "corp sso",
    description: "Corporate SSO",
    defaultRole: builtIn.viewer,
    ...extra,
    oidc: {
      issuer: "https://login.example.com",
      clientId: "lading",
      clientSecret: "s3cret",
      ...oidc,
    },
  };
}

/** The stored client secret of identity provider `uid`, read from the database. */
export async function clientSecretOf(h: Harness, uid: string): Promise<string> {
  const row = await h.server.lading.store.db
    .selectFrom("identity_providers")
    .select("client_secret")
    .where("uid", "=", uid)
    .executeTakeFirstOrThrow();
  return row.client_secret;
}
