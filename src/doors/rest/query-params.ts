import {
  create,
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonValue,
  ScalarType,
} from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import { FieldMaskSchema, isWrapperDesc } from "@bufbuild/protobuf/wkt";
import type { FieldViolation } from "../../errors/index.ts";
import { decodeField, expectation, findField, isNestedMessage } from "./json-fields.ts";
import type { Parsed } from "./path-template.ts";

/** A value for a (possibly nested) field of the request, ready for ReflectMessage.set. */
export interface FieldAssignment {
  /** The fields from the request message down to the one set. */
  fields: DescField[];
  value: unknown;
}

/**
 * Turns query parameters into field assignments. Names are accepted in snake_case and
 * lowerCamel, dotted for nested messages (`uidp.descendants_of`, `uidp.descendantsOf`);
 * repeated fields take the parameter several times; a FieldMask takes comma-separated paths in
 * either spelling and keeps them in snake_case; an enum takes its value name, its number, or
 * the name without the enum's prefix in any case (`ecosystems=python`, see enumValueName).
 * Fields the path or body already sets (`isBound`, given snake_case dotted paths) cannot be set
 * here. Violations name the parameter as the client wrote it.
 */
export function parseQueryParams(
  input: DescMessage,
  params: URLSearchParams,
  isBound: (path: string) => string | undefined,
  violations: FieldViolation[],
): FieldAssignment[] {
  const assignments: FieldAssignment[] = [];
  for (const key of new Set(params.keys())) {
    const resolved = resolveFieldPath(input, key);
    if (resolved.error !== undefined) {
      violations.push({ field: key, description: resolved.error });
      continue;
    }
    const fields = resolved.value;
    const snake = fields.map((f) => f.name).join(".");
    const boundBy = isBound(snake);
    if (boundBy) {
      violations.push({
        field: key,
        description: `cannot be given in the query: the ${boundBy} sets it`,
      });
      continue;
    }
    const parent = fields.length > 1 ? (fields.at(-2)?.message as DescMessage) : input;
    const value = queryValue(parent, fields[fields.length - 1], params.getAll(key));
    if (value.error !== undefined) violations.push({ field: key, description: value.error });
    else assignments.push({ fields, value: value.value });
  }
  return assignments;
}

/** Resolves a dotted field path (each part snake_case or lowerCamel) to its fields. */
export function resolveFieldPath(input: DescMessage, dotted: string): Parsed<DescField[]> {
  const fields: DescField[] = [];
  let message: DescMessage = input;
  const parts = dotted.split(".");
  for (const [i, part] of parts.entries()) {
    const field = findField(message, part);
    if (!field) return { error: `is not a field of ${input.name}` };
    fields.push(field);
    if (i === parts.length - 1) break;
    if (!isNestedMessage(field)) return { error: `is not a field of ${input.name}` };
    message = field.message;
  }
  return { value: fields };
}

function queryValue(parent: DescMessage, field: DescField, texts: string[]): Parsed<unknown> {
  if (field.fieldKind === "map") return { error: "is a map and cannot be given in the query" };
  if (field.fieldKind === "message" && field.message.typeName === FieldMaskSchema.typeName) {
    return fieldMask(texts);
  }
  if (isNestedMessage(field)) {
    const example = field.message.fields[0]?.name ?? "field";
    return { error: `is a message: give its fields instead, e.g. ${field.name}.${example}` };
  }
  if (field.fieldKind === "list") {
    if (field.listKind === "message" && !isWrapperDesc(field.message)) {
      return { error: "is a list of messages and cannot be given in the query" };
    }
    const items = texts.map((t) => jsonOf(field, t));
    if (items.includes(undefined)) return { error: textExpectation(field) };
    return withTextExpectation(field, decodeField(parent, field, items as JsonValue[]));
  }
  if (texts.length > 1) return { error: "must be given once" };
  return textValue(parent, field, texts[0]);
}

/**
 * Decodes one text value (a path variable or query parameter) of `field`, a field of `parent`.
 * Numbers are stricter than in JSON bodies: integers in plain decimal (no `1e3`, no `0x10`),
 * floats in decimal or exponent notation, like grpc-gateway's strconv parsing.
 */
export function textValue(parent: DescMessage, field: DescField, text: string): Parsed<unknown> {
  const json = jsonOf(field, text);
  if (json === undefined) return { error: textExpectation(field) };
  return withTextExpectation(field, decodeField(parent, field, json));
}

/** What a text value of `field` must look like: an enum's also says its prefix may go. */
function textExpectation(field: DescField): string {
  const prefix = field.enum?.sharedPrefix?.toUpperCase();
  return prefix
    ? `${expectation(field)} (the ${prefix} prefix may be left out, in any case)`
    : expectation(field);
}

function withTextExpectation(field: DescField, parsed: Parsed<unknown>): Parsed<unknown> {
  return parsed.error !== undefined ? { error: textExpectation(field) } : parsed;
}

const ENUM_TEXT = /^[A-Za-z0-9_.-]{1,100}$/;

/**
 * The value name `text` means in `desc`: the name itself, or the name without the enum's shared
 * prefix (`ECOSYSTEM_`), in any case, with `-` or `.` read as `_`, so `python`, `PYTHON`,
 * `ecosystem_python` and `ECOSYSTEM_PYTHON` are all ECOSYSTEM_PYTHON and `fixed` or
 * `false-positive-determination` name event types as the CLI and the advisory documents write
 * them. The text as given when it names none (decoding then says what it must be).
 */
export function enumValueName(desc: DescEnum, text: string): string {
  if (!ENUM_TEXT.test(text)) return text;
  const wanted = text.toUpperCase().replace(/[-.]/g, "_");
  const prefix = desc.sharedPrefix?.toUpperCase() ?? "";
  const value =
    desc.values.find((v) => v.name === wanted) ??
    (prefix === "" ? undefined : desc.values.find((v) => v.name === prefix + wanted));
  return value?.name ?? text;
}

const INTEGER = /^-?\d+$/;
const FLOAT = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^(NaN|-?Infinity)$/;
const floats = new Set([ScalarType.DOUBLE, ScalarType.FLOAT]);

/** The JSON form of a text value, or undefined when the text cannot be one. */
function jsonOf(field: DescField, text: string): JsonValue | undefined {
  if (field.enum) return INTEGER.test(text) ? Number(text) : enumValueName(field.enum, text);
  let scalar = field.scalar;
  if (field.message && isWrapperDesc(field.message)) scalar = field.message.fields[0].scalar;
  if (scalar === undefined || scalar === ScalarType.STRING || scalar === ScalarType.BYTES)
    return text;
  if (scalar === ScalarType.BOOL) {
    const lower = text.toLowerCase();
    if (lower === "true" || lower === "1") return true;
    if (lower === "false" || lower === "0") return false;
    return undefined;
  }
  return (floats.has(scalar) ? FLOAT : INTEGER).test(text) ? text : undefined;
}

const PATH_PART = /^[A-Za-z_][A-Za-z0-9_]*$/;

function fieldMask(texts: string[]): Parsed<unknown> {
  const paths: string[] = [];
  for (const raw of texts.flatMap((t) => t.split(","))) {
    const path = raw.trim();
    if (path === "") continue;
    if (path !== "*" && !path.split(".").every((p) => PATH_PART.test(p))) {
      return { error: `has an invalid path "${path}": give comma-separated field paths` };
    }
    paths.push(path.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`));
  }
  return { value: reflect(FieldMaskSchema, create(FieldMaskSchema, { paths })) };
}
