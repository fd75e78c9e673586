import type { JsonObject } from "@bufbuild/protobuf";
import { GroupInvitesService } from "../../src/gen/lading/iam/v2/group_invites_pb.js";
import { TermsService } from "../../src/gen/lading/iam/v2/terms_pb.js";
import { identityExtras } from "../../src/store/metadata/index.ts";
import { newChildUid, newRootUid } from "../../src/uidp/index.ts";
import { grpcCaller, listRequest, type Result, restCall } from "./api-client.ts";
import type { TestServer } from "./server.ts";

/** Inserts an identity under `parent` ("" for a signed-in user at the root) and mints its token. */
export async function addIdentity(
  server: TestServer,
  parent: string,
  email = "",
): Promise<{ uid: string; token: string }> {
  const time = new Date().toISOString();
  const uid = parent === "" ? newRootUid() : newChildUid(parent);
  await server.lading.store.db
    .insertInto("identities")
    .values({
      uid,
      parent_uid: parent,
      name: `user-${uid.slice(-6)}`,
      description: "",
      issuer: parent === "" ? "https://idp.example.com" : "",
      subject: parent === "" ? uid : "",
      ...identityExtras,
      email,
      last_seen_time: null,
      create_time: time,
      update_time: time,
    })
    .execute();
  return { uid, token: await server.token(uid) };
}

/** Inserts a role on `group` with the dotted `capabilities`. */
export async function addRole(
  server: TestServer,
  group: string,
  capabilities: string[],
): Promise<string> {
  const time = new Date().toISOString();
  const uid = newChildUid(group);
  await server.lading.store.db
    .insertInto("roles")
    .values({
      uid,
      parent_uid: group,
      name: `role-${uid.slice(-6)}`,
      description: "test role",
      capabilities: JSON.stringify(capabilities),
      create_time: time,
      update_time: time,
    })
    .execute();
  return uid;
}

/** Binds `roleUid` to `identityUid` on `group`; returns the binding's uid. */
export async function bind(
  server: TestServer,
  identityUid: string,
  group: string,
  roleUid: string,
): Promise<string> {
  const time = new Date().toISOString();
  const uid = newChildUid(group);
  await server.lading.store.db
    .insertInto("role_bindings")
    .values({
      uid,
      parent_uid: group,
      identity_uid: identityUid,
      role_uid: roleUid,
      mapping_uid: "",
      create_time: time,
      update_time: time,
    })
    .execute();
  return uid;
}

/** An identity under `group` holding a new role of `capabilities` there. */
export async function holder(
  server: TestServer,
  group: string,
  capabilities: string[],
): Promise<{ uid: string; token: string }> {
  const who = await addIdentity(server, group);
  await bind(server, who.uid, group, await addRole(server, group, capabilities));
  return who;
}

/** GroupInvites and Terms calls over either transport. */
export interface InvitesApi {
  create(parent: string, body: JsonObject): Promise<Result>;
  list(params?: Record<string, string | number>): Promise<Result>;
  get(uid: string): Promise<Result>;
  delete(uid: string): Promise<Result>;
  accept(code: string): Promise<Result>;
  acceptTerms(group: string, documentIds: string[]): Promise<Result>;
  listTerms(group: string, params?: Record<string, string | number>): Promise<Result>;
}

/** The invites and terms API for `token` over `transport`. */
export function invitesApi(
  transport: "rest" | "grpc",
  baseUrl: string,
  token: string | undefined,
): InvitesApi {
  const query = (params: Record<string, string | number>) => {
    const q = new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return q ? `?${q}` : "";
  };
  if (transport === "rest") {
    const send = (method: string, path: string, body?: JsonObject) =>
      restCall(baseUrl, token, method, path, body);
    return {
      create: (parent, body) => send("POST", `/iam/v2/groupInvites/${parent}`, body),
      list: (params = {}) => send("GET", `/iam/v2/groupInvites${query(params)}`),
      get: (uid) => send("GET", `/iam/v2/groupInvites/${uid}`),
      delete: (uid) => send("DELETE", `/iam/v2/groupInvites/${uid}`),
      accept: (code) => send("POST", "/iam/v2/groupInvites:accept", { code }),
      acceptTerms: (group, documentIds) => send("POST", `/iam/v2/terms/${group}`, { documentIds }),
      listTerms: (group, params = {}) => send("GET", `/iam/v2/terms/${group}${query(params)}`),
    };
  }
  const grpc = grpcCaller(baseUrl, token);
  return {
    create: (parent, body) =>
      grpc(GroupInvitesService, "createGroupInvite", { parent, groupInvite: body }),
    list: (params = {}) => grpc(GroupInvitesService, "listGroupInvites", listRequest(params)),
    get: (uid) => grpc(GroupInvitesService, "getGroupInvite", { uid }),
    delete: (uid) => grpc(GroupInvitesService, "deleteGroupInvite", { uid }),
    accept: (code) => grpc(GroupInvitesService, "acceptGroupInvite", { code }),
    acceptTerms: (group, documentIds) => grpc(TermsService, "acceptTerms", { group, documentIds }),
    listTerms: (group, params = {}) =>
      grpc(TermsService, "listTermsAcceptances", { group, ...listRequest(params) }),
  };
}
