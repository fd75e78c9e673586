import {
  create,
  type DescField,
  type DescMessage,
  fromJson,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { type ReflectMessage, reflect } from "@bufbuild/protobuf/reflect";
import { type FieldViolation, invalidArgument } from "../../errors/index.ts";
import { checkJsonObject, decodeField, isJsonObject, jsonLeafPaths } from "./json-fields.ts";
import type { PathBindings } from "./path-template.ts";
import {
  type FieldAssignment,
  parseQueryParams,
  resolveFieldPath,
  textValue,
} from "./query-params.ts";
import type { RestRoute } from "./route-table.ts";

/** A request message built from an HTTP request. */
export interface TranscodedRequest {
  message: Message;
  /**
   * The leaf field paths present in the JSON body, relative to the body field (snake_case,
   * dotted): what an update without a mask changes. Undefined when the route takes no body.
   */
  bodyPaths: string[] | undefined;
}

/**
 * Builds the request message of `route` from the JSON body (proto3 JSON, no unknown fields),
 * the path variables (which win over the same field in the body) and query parameters for
 * every field neither of them sets. Every failing field is collected into one
 * INVALID_ARGUMENT (DESIGN §4) whose domain is the route's first path segment.
 */
export function transcodeRequest(
  route: RestRoute,
  bindings: PathBindings,
  query: URLSearchParams,
  body: Buffer | undefined,
): TranscodedRequest {
  const input = route.method.input;
  const violations: FieldViolation[] = [];
  const root = reflect(input, create(input));
  let bodyPaths: string[] | undefined;
  if (route.body !== undefined) {
    const json = parseBody(route.body, body, violations);
    if (json !== undefined) bodyPaths = applyBody(root, route.body, json, violations);
  }
  const assignments: FieldAssignment[] = [];
  for (const [dotted, text] of bindings) {
    const fields = resolveFieldPath(input, dotted).value ?? [];
    const value = textValue(parentOf(input, fields), fields[fields.length - 1], text);
    if (value.error !== undefined) violations.push({ field: dotted, description: value.error });
    else assignments.push({ fields, value: value.value });
  }
  const isBound = (path: string): string | undefined => {
    for (const dotted of bindings.keys()) if (overlaps(path, dotted)) return "path";
    if (route.body === "*") return "body";
    if (route.body && overlaps(path, route.body.name)) return "body";
    return undefined;
  };
  assignments.push(...parseQueryParams(input, query, isBound, violations));
  if (violations.length > 0) throw invalidArgument(route.domain, violations);
  for (const a of assignments) setAt(root, a.fields, a.value);
  return { message: root.message, bodyPaths };
}

function overlaps(a: string, b: string): boolean {
  return a === b || a.startsWith(`${b}.`) || b.startsWith(`${a}.`);
}

function parentOf(input: DescMessage, fields: DescField[]): DescMessage {
  return fields.length > 1 ? (fields[fields.length - 2].message as DescMessage) : input;
}

function bodyName(body: DescField | "*"): string {
  return body === "*" ? "body" : body.jsonName;
}

function parseBody(
  body: DescField | "*",
  bytes: Buffer | undefined,
  violations: FieldViolation[],
): JsonValue | undefined {
  const text = bytes?.toString("utf8") ?? "";
  if (text.trim() === "") return {};
  try {
    return JSON.parse(text) as JsonValue;
  } catch (err) {
    const reason = err instanceof SyntaxError ? `: ${err.message}` : "";
    violations.push({ field: bodyName(body), description: `must be valid JSON${reason}` });
    return undefined;
  }
}

function applyBody(
  root: ReflectMessage,
  body: DescField | "*",
  json: JsonValue,
  violations: FieldViolation[],
): string[] | undefined {
  const message = body === "*" ? root.desc : body.message;
  const objectBody = body === "*" || body.fieldKind === "message";
  if (objectBody && !isJsonObject(json)) {
    violations.push({ field: bodyName(body), description: "must be a JSON object" });
    return undefined;
  }
  const before = violations.length;
  if (objectBody && message) checkJsonObject(message, json, "", violations);
  if (violations.length > before) return undefined;
  if (body === "*") {
    let decoded: ReflectMessage;
    try {
      decoded = reflect(root.desc, fromJson(root.desc, json, { ignoreUnknownFields: false }));
    } catch (err) {
      violations.push({ field: "body", description: jsonErrorText(err) });
      return undefined;
    }
    for (const field of root.desc.fields)
      if (decoded.isSet(field)) root.set(field, decoded.get(field));
  } else {
    const value = decodeField(root.desc, body, json);
    if (value.error !== undefined) {
      violations.push({ field: bodyName(body), description: value.error });
      return undefined;
    }
    root.set(body, value.value);
  }
  return message ? jsonLeafPaths(message, json) : undefined;
}

function jsonErrorText(err: unknown): string {
  const text = err instanceof Error ? err.message : String(err);
  return text.replace(/^cannot decode .* from JSON: /, "");
}

function setAt(target: ReflectMessage, fields: DescField[], value: unknown): void {
  const [first, ...rest] = fields;
  if (rest.length === 0) {
    target.set(first, value);
    return;
  }
  const child = target.get(first) as ReflectMessage;
  setAt(child, rest, value);
  target.set(first, child);
}
