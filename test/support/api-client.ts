import {
  type DescService,
  fromJson,
  type JsonObject,
  type JsonValue,
  toJson,
} from "@bufbuild/protobuf";
import { type Client, ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import {
  BadRequestSchema,
  ErrorInfoSchema,
  PreconditionFailureSchema,
  ResourceInfoSchema,
} from "../../src/gen/google/rpc/error_details_pb.js";
import { GroupsService } from "../../src/gen/lading/iam/v2/groups_pb.js";
import { IdentitiesService } from "../../src/gen/lading/iam/v2/identities_pb.js";
import { RoleBindingsService } from "../../src/gen/lading/iam/v2/role_bindings_pb.js";
import { RolesService } from "../../src/gen/lading/iam/v2/roles_pb.js";

/** The IAM collections, by their REST path segment. */
export type Kind = "groups" | "identities" | "roles" | "roleBindings";

/** A JSON answer, whichever transport carried it. */
export type Result =
  | { ok: true; body: JsonObject }
  | { ok: false; code: number; message: string; details: JsonObject[]; httpStatus?: number };

/** The same API calls over REST or gRPC, answering in proto3 JSON either way. */
export interface Api<K extends string = Kind> {
  transport: "rest" | "grpc";
  list(kind: K, params?: Record<string, string | number>): Promise<Result>;
  get(kind: K, uid: string): Promise<Result>;
  create(kind: K, parent: string, body: JsonObject): Promise<Result>;
  /** `mask` is the comma-separated updateMask, or undefined for none. */
  update(kind: K, uid: string, body: JsonObject, mask?: string): Promise<Result>;
  delete(kind: K, uid: string): Promise<Result>;
}

/** One REST call with an optional bearer token, answered as a Result. */
export async function restCall(
  baseUrl: string,
  token: string | undefined,
  method: string,
  path: string,
  body?: JsonObject,
): Promise<Result> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: body && JSON.stringify(body),
  });
  const json = (await res.json()) as JsonObject;
  if (res.ok) return { ok: true, body: json };
  return {
    ok: false,
    code: json.code as number,
    message: json.message as string,
    details: (json.details ?? []) as JsonObject[],
    httpStatus: res.status,
  };
}

/** The REST transport: plain fetch against the paths users write (`/iam/v2/<kind>/…`). */
export function restApi<K extends string = Kind>(
  baseUrl: string,
  token: string | undefined,
): Api<K> {
  const send = (method: string, path: string, body?: JsonObject) =>
    restCall(baseUrl, token, method, path, body);
  const query = (params: Record<string, string | number>) => {
    const q = new URLSearchParams(
      Object.entries(params).map(([k, v]): [string, string] => [k, String(v)]),
    ).toString();
    return q ? `?${q}` : "";
  };
  return {
    transport: "rest",
    list: (kind, params = {}) => send("GET", `/iam/v2/${kind}${query(params)}`),
    get: (kind, uid) => send("GET", `/iam/v2/${kind}/${uid}`),
    create: (kind, parent, body) => send("POST", `/iam/v2/${kind}/${parent}`, body),
    update: (kind, uid, body, mask) =>
      send(
        "PATCH",
        `/iam/v2/${kind}/${uid}${mask === undefined ? "" : query({ updateMask: mask })}`,
        body,
      ),
    delete: (kind, uid) => send("DELETE", `/iam/v2/${kind}/${uid}`),
  };
}

const services = {
  groups: { service: GroupsService, one: "Group", many: "Groups", field: "group" },
  identities: {
    service: IdentitiesService,
    one: "Identity",
    many: "Identities",
    field: "identity",
  },
  roles: { service: RolesService, one: "Role", many: "Roles", field: "role" },
  roleBindings: {
    service: RoleBindingsService,
    one: "RoleBinding",
    many: "RoleBindings",
    field: "roleBinding",
  },
} as const;

/** Calls any unary method over gRPC (h2c or TLS) with proto3 JSON in and out. */
export function grpcCaller(
  baseUrl: string,
  token: string | undefined,
): (service: DescService, name: string, request: JsonObject) => Promise<Result> {
  const transport = createGrpcTransport({
    baseUrl,
    interceptors: token
      ? [
          (next) => (req) => {
            req.header.set("authorization", `Bearer ${token}`);
            return next(req);
          },
        ]
      : [],
  });
  return async (service, name, request) => {
    const method = service.methods.find((m) => m.localName === name);
    if (method?.methodKind !== "unary") throw new Error(`no method ${name}`);
    const client = createClient(service, transport) as Client<DescService>;
    try {
      const input = fromJson(method.input, request);
      const output = await (client[name] as (i: unknown) => Promise<never>)(input);
      return {
        ok: true,
        body: toJson(method.output, output, { alwaysEmitImplicit: true }) as JsonObject,
      };
    } catch (error) {
      const e = ConnectError.from(error);
      return { ok: false, code: e.code, message: e.rawMessage, details: errorDetails(e) };
    }
  };
}

/** The gRPC transport: a real gRPC client over HTTP/2 (h2c or TLS). */
export function grpcApi(baseUrl: string, token: string | undefined): Api {
  const grpc = grpcCaller(baseUrl, token);
  const call = (kind: Kind, verb: string, request: JsonObject) => {
    const { service, one, many } = services[kind];
    return grpc(service as DescService, `${verb}${verb === "list" ? many : one}`, request);
  };
  return {
    transport: "grpc",
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

/** REST-style list parameters (`page_size`, `uidp.descendants_of`) as a proto3 JSON request. */
export function listRequest(
  params: Record<string, string | number | boolean | string[]>,
): JsonObject {
  const out: JsonObject = {};
  for (const [key, value] of Object.entries(params)) {
    const path = key
      .split(".")
      .map((p) => p.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase()));
    let target = out;
    for (const part of path.slice(0, -1)) {
      target[part] ??= {};
      target = target[part] as JsonObject;
    }
    target[path[path.length - 1]] = value as JsonValue;
  }
  return out;
}

/** The typed details of a ConnectError in the JSON shape REST uses. */
function errorDetails(e: ConnectError): JsonObject[] {
  const out: JsonObject[] = [];
  for (const schema of [
    ErrorInfoSchema,
    BadRequestSchema,
    PreconditionFailureSchema,
    ResourceInfoSchema,
  ]) {
    for (const detail of e.findDetails(schema)) {
      out.push({
        "@type": `type.googleapis.com/${schema.typeName}`,
        ...(toJson(schema, detail) as JsonObject),
      });
    }
  }
  return out;
}

/** Both transports, so every suite runs over each. */
export const transports = ["rest", "grpc"] as const;

/** The adapter for `transport`. */
export function apiFor(
  transport: "rest" | "grpc",
  baseUrl: string,
  token: string | undefined,
): Api {
  return transport === "rest" ? restApi(baseUrl, token) : grpcApi(baseUrl, token);
}
