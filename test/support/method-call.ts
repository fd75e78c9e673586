import { type DescMethod, getOption, type JsonObject } from "@bufbuild/protobuf";
import { http } from "../../src/gen/google/api/annotations_pb.js";
import { grpcCaller, type Result, restCall } from "./api-client.ts";

/** Calls one RPC, named by its descriptor, with a proto3 JSON request. */
export type MethodCall = (method: DescMethod, request: JsonObject) => Promise<Result>;

/** `snake_case` to the proto3 JSON name. */
const jsonName = (name: string) => name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());

/**
 * Builds the REST request of `method` from its google.api.http rule: path variables are taken
 * out of the request, the body field (or the rest, for "*") is sent as JSON, and what remains
 * goes in the query string (scalars only, such as updateMask).
 */
function restRequest(method: DescMethod, request: JsonObject) {
  const rule = getOption(method, http);
  const { case: verb, value: template } = rule.pattern;
  if (verb === undefined || verb === "custom") throw new Error(`${method.name} has no http rule`);
  const rest = structuredClone(request);
  const path = template.replace(/\{([a-z_.]+)(=[^}]*)?\}/g, (_, fieldPath: string) => {
    const names = fieldPath.split(".").map(jsonName);
    let holder = rest;
    for (const name of names.slice(0, -1)) holder = (holder[name] ?? {}) as JsonObject;
    const value = String(holder[names[names.length - 1]] ?? "");
    delete holder[names[names.length - 1]];
    return value;
  });
  let body: JsonObject | undefined;
  if (rule.body === "*") {
    body = rest;
  } else if (rule.body !== "") {
    body = (rest[jsonName(rule.body)] ?? {}) as JsonObject;
    delete rest[jsonName(rule.body)];
  }
  const query = new URLSearchParams();
  if (rule.body !== "*") {
    for (const [key, value] of Object.entries(rest)) query.set(key, String(value));
  }
  const q = query.toString();
  return { verb: verb.toUpperCase(), path: q ? `${path}?${q}` : path, body };
}

/** A MethodCall over `transport` with `token`. */
export function methodCaller(
  transport: "rest" | "grpc",
  baseUrl: string,
  token: string | undefined,
): MethodCall {
  if (transport === "grpc") {
    const grpc = grpcCaller(baseUrl, token);
    return (method, request) => grpc(method.parent, method.localName, request);
  }
  return (method, request) => {
    const { verb, path, body } = restRequest(method, request);
    return restCall(baseUrl, token, verb, path, body);
  };
}
