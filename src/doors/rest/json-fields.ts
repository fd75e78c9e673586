import {
  type DescField,
  type DescMessage,
  fromJson,
  type JsonValue,
  type Message,
  ScalarType,
} from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";
import type { FieldViolation } from "../../errors/index.ts";
import type { Parsed } from "./path-template.ts";

/** The field of `message` named `key` in snake_case (proto name) or lowerCamel (JSON name). */
export function findField(message: DescMessage, key: string): DescField | undefined {
  return message.fields.find((f) => f.name === key || f.jsonName === key);
}

/**
 * True for a message field the transcoder descends into (a plain message, not a well-known type
 * such as Timestamp, FieldMask or a wrapper, whose JSON form is a single value).
 */
export function isNestedMessage(field: DescField): field is DescField & { fieldKind: "message" } {
  return field.fieldKind === "message" && !field.message.typeName.startsWith("google.protobuf.");
}

const int32 = "an integer from -2147483648 to 2147483647";
const expectations: Partial<Record<ScalarType, string>> = {
  [ScalarType.STRING]: "a string",
  [ScalarType.BOOL]: "true or false",
  [ScalarType.BYTES]: "base64 text",
  [ScalarType.DOUBLE]: "a number",
  [ScalarType.FLOAT]: "a 32-bit number",
  [ScalarType.INT32]: int32,
  [ScalarType.SINT32]: int32,
  [ScalarType.SFIXED32]: int32,
  [ScalarType.UINT32]: "an integer from 0 to 4294967295",
  [ScalarType.FIXED32]: "an integer from 0 to 4294967295",
  [ScalarType.UINT64]: "an integer from 0 to 18446744073709551615",
  [ScalarType.FIXED64]: "an integer from 0 to 18446744073709551615",
};
const int64 = "an integer from -9223372036854775808 to 9223372036854775807";
const messageExpectations: Record<string, string> = {
  "google.protobuf.Timestamp": "an RFC 3339 timestamp such as 2026-01-28T12:54:21.189Z",
  "google.protobuf.Duration": "a duration in seconds such as 1.5s",
  "google.protobuf.FieldMask": "a comma-separated list of field paths",
};

/** What a value of `field` must look like, as a violation description. */
export function expectation(field: DescField): string {
  const single = singleExpectation(field);
  return field.fieldKind === "list" ? `must be a list, each item ${single}` : `must be ${single}`;
}

function singleExpectation(field: DescField): string {
  const scalar =
    field.fieldKind === "list" || field.fieldKind === "scalar" ? field.scalar : undefined;
  const enumDesc =
    field.fieldKind === "list" || field.fieldKind === "enum" ? field.enum : undefined;
  const message =
    field.fieldKind === "list" || field.fieldKind === "message" ? field.message : undefined;
  if (scalar !== undefined) return expectations[scalar] ?? int64;
  if (enumDesc) return `one of ${enumDesc.values.map((v) => v.name).join(", ")}`;
  if (message && isWrapperDesc(message)) return singleExpectation(message.fields[0]);
  if (message) return messageExpectations[message.typeName] ?? "a JSON object";
  return "a JSON value of the field's type";
}

/**
 * Decodes one JSON value of `field` (a field of `parent`), returning it in the form
 * ReflectMessage.set expects, or a description of what the value must look like.
 */
export function decodeField(
  parent: DescMessage,
  field: DescField,
  json: JsonValue,
): Parsed<unknown> {
  let decoded: Message;
  try {
    decoded = fromJson(parent, { [field.jsonName]: json }, { ignoreUnknownFields: false });
  } catch {
    return { error: expectation(field) };
  }
  return { value: reflect(parent, decoded).get(field) };
}

/** A plain JSON object (not null, not an array). */
export function isJsonObject(json: unknown): json is { [key: string]: JsonValue } {
  return typeof json === "object" && json !== null && !Array.isArray(json);
}

/**
 * Checks a JSON object against a message schema, collecting one violation per failing field:
 * unknown keys, values of the wrong type, out-of-range numbers. Nested plain messages are
 * checked field by field; field names in violations are the keys as the client wrote them.
 */
export function checkJsonObject(
  message: DescMessage,
  json: JsonValue,
  path: string,
  violations: FieldViolation[],
): void {
  if (!isJsonObject(json)) {
    violations.push({ field: path, description: "must be a JSON object" });
    return;
  }
  const prefix = path === "" ? "" : `${path}.`;
  const seen = new Map<DescField, string>();
  for (const [key, value] of Object.entries(json)) {
    const name = `${prefix}${key}`;
    const field = findField(message, key);
    if (!field) {
      violations.push({ field: name, description: `is not a field of ${message.name}` });
      continue;
    }
    if (seen.has(field)) {
      violations.push({ field: name, description: `is the same field as ${seen.get(field)}` });
      continue;
    }
    seen.set(field, name);
    if (value !== null && isNestedMessage(field)) {
      checkJsonObject(field.message, value, name, violations);
    } else if (Array.isArray(value) && field.fieldKind === "list" && field.listKind === "message") {
      const item = field.message;
      if (item.typeName.startsWith("google.protobuf.")) {
        checkValue(message, field, value, name, violations);
      } else {
        for (const [i, v] of value.entries()) checkJsonObject(item, v, `${name}[${i}]`, violations);
      }
    } else {
      checkValue(message, field, value, name, violations);
    }
  }
}

function checkValue(
  message: DescMessage,
  field: DescField,
  value: JsonValue,
  name: string,
  violations: FieldViolation[],
): void {
  const decoded = decodeField(message, field, value);
  if (decoded.error !== undefined) violations.push({ field: name, description: decoded.error });
}

/**
 * The leaf field paths present in a checked JSON object: snake_case, dotted for nested
 * messages (`claimMatch: {issuer}` → `claim_match.issuer`). A nested message given as `{}` or
 * null counts as its own path.
 */
export function jsonLeafPaths(message: DescMessage, json: JsonValue, prefix = ""): string[] {
  if (!isJsonObject(json)) return [];
  const paths: string[] = [];
  for (const [key, value] of Object.entries(json)) {
    const field = findField(message, key);
    if (!field) continue;
    const path = `${prefix}${field.name}`;
    const nested =
      isNestedMessage(field) && isJsonObject(value) && Object.keys(value).length > 0
        ? jsonLeafPaths(field.message, value, `${path}.`)
        : [];
    paths.push(...(nested.length > 0 ? nested : [path]));
  }
  return paths;
}
